package input

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeCost decodes a JSON cost the way the request binder will: UseNumber,
// so numbers arrive as json.Number.
func decodeCost(t testing.TB, js string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	return v
}

func TestCostFormat(t *testing.T) {
	tests := []struct {
		name     string
		input    string // JSON of the request's cost
		cost     string
		symbol   string
		position string
		code     string
		values   []string
	}{
		// The Events Calendar's own examples.
		{"postfix dollar", `"20$"`, "20$", "$", "postfix", "", []string{"20"}},
		{"array with zero", `["0$","20$","30$"]`, "Free – 30$", "$", "postfix", "", []string{"0", "20", "30"}},
		{"bare number uses site default", `"23"`, "$23", "$", "prefix", "", []string{"23"}},
		// Captures 24, 40, 42: "15" and "20" sent without a symbol. The plugin
		// reports an empty symbol; this API reports the site default used.
		{"capture 40 create", `"15"`, "$15", "$", "prefix", "", []string{"15"}},
		{"capture 42 update", `"20"`, "$20", "$", "prefix", "", []string{"20"}},
		{"capture 03 list", `"5"`, "$5", "$", "prefix", "", []string{"5"}},
		// Capture 41: no cost at all.
		{"no cost nil", `null`, "", "", "", "", []string{}},
		{"empty string", `""`, "", "", "", "", []string{}},
		{"blank string", `"   "`, "", "", "", "", []string{}},
		{"empty array", `[]`, "", "", "", "", []string{}},
		{"array of blanks", `["", " ", null]`, "", "", "", "", []string{}},

		// Free.
		{"zero", `"0"`, "Free", "$", "prefix", "", []string{"0"}},
		{"zero number", `0`, "Free", "$", "prefix", "", []string{"0"}},
		{"zero decimals", `"0.00"`, "Free", "$", "prefix", "", []string{"0.00"}},
		{"free word", `"Free"`, "Free", "$", "prefix", "", []string{"0"}},
		{"free lower case", `"free"`, "Free", "$", "prefix", "", []string{"0"}},
		{"free in array", `["Free","20$"]`, "Free – 20$", "$", "postfix", "", []string{"0", "20"}},
		{"own output reads back", `"Free – 30$"`, "Free – 30$", "$", "postfix", "", []string{"0", "30"}},
		{"freedom is not free", `"Freedom 10"`, "$10", "$", "prefix", "", []string{"10"}},

		// Ranges.
		{"hyphen range", `"10-20"`, "$10 – $20", "$", "prefix", "", []string{"10", "20"}},
		{"range prefix symbol", `"$10 - $20"`, "$10 – $20", "$", "prefix", "", []string{"10", "20"}},
		{"range postfix symbol", `"10-20€"`, "10€ – 20€", "€", "postfix", "", []string{"10", "20"}},
		{"en dash range", `"€10–€25"`, "€10 – €25", "€", "prefix", "", []string{"10", "25"}},
		{"range from zero", `"0-30"`, "Free – $30", "$", "prefix", "", []string{"0", "30"}},
		{"unsorted array", `["30","10","20"]`, "$10 – $30", "$", "prefix", "", []string{"10", "20", "30"}},
		{"same min and max", `["20","20.00"]`, "$20", "$", "prefix", "", []string{"20"}},
		{"text with prices", `"Adults 20$, kids 10$"`, "10$ – 20$", "$", "postfix", "", []string{"10", "20"}},

		// Decimals.
		{"decimal comma", `"25,55"`, "$25.55", "$", "prefix", "", []string{"25.55"}},
		{"decimal point", `"25.55"`, "$25.55", "$", "prefix", "", []string{"25.55"}},
		{"decimals kept", `"20.50"`, "$20.50", "$", "prefix", "", []string{"20.50"}},
		{"json decimal number", `19.99`, "$19.99", "$", "prefix", "", []string{"19.99"}},
		{"leading point", `"$.50"`, "$0.50", "$", "prefix", "", []string{"0.50"}},
		{"thousands comma", `"$1,000"`, "$1000", "$", "prefix", "", []string{"1000"}},
		{"thousands point", `"1.500 €"`, "1500€", "€", "postfix", "", []string{"1500"}},
		{"thousands and decimals", `"1,234.56"`, "$1234.56", "$", "prefix", "", []string{"1234.56"}},
		{"european thousands and decimals", `"1.234,56 €"`, "1234.56€", "€", "postfix", "", []string{"1234.56"}},
		{"millions", `"1,000,000"`, "$1000000", "$", "prefix", "", []string{"1000000"}},
		{"zero then three digits is decimal", `"0,500"`, "$0.500", "$", "prefix", "", []string{"0.500"}},
		{"comma list", `"10,20,30"`, "$10 – $30", "$", "prefix", "", []string{"10", "20", "30"}},
		{"leading zeros", `"007"`, "$7", "$", "prefix", "", []string{"7"}},
		{"decimal ordering", `["0.5","0.05","0.45"]`, "$0.05 – $0.5", "$", "prefix", "", []string{"0.05", "0.45", "0.5"}},
		{"long numbers ordered exactly", `["123456789012345678901234567891","123456789012345678901234567890"]`,
			"$123456789012345678901234567890 – $123456789012345678901234567891", "$", "prefix", "",
			[]string{"123456789012345678901234567890", "123456789012345678901234567891"}},

		// Symbols and positions.
		{"euro prefix with space", `"€ 15"`, "€15", "€", "prefix", "", []string{"15"}},
		{"euro prefix", `"€15"`, "€15", "€", "prefix", "", []string{"15"}},
		{"pound", `"£7.50"`, "£7.50", "£", "prefix", "", []string{"7.50"}},
		{"yen postfix", `"1500円"`, "1500円", "円", "postfix", "", []string{"1500"}},
		{"rupee", `"₹500"`, "₹500", "₹", "prefix", "", []string{"500"}},
		{"US dollar sign", `"US$20"`, "US$20", "US$", "prefix", "", []string{"20"}},
		{"ISO code prefix", `"USD 15"`, "USD 15", "USD", "prefix", "USD", []string{"15"}},
		{"ISO code postfix", `"15 EUR"`, "15 EUR", "EUR", "postfix", "EUR", []string{"15"}},
		{"ISO code range", `"10-20 CHF"`, "10 CHF – 20 CHF", "CHF", "postfix", "CHF", []string{"10", "20"}},
		{"lower-case code is not a symbol", `"15 eur"`, "$15", "$", "prefix", "", []string{"15"}},
		{"letter symbol", `"100 kr"`, "100 kr", "kr", "postfix", "", []string{"100"}},
		{"word is not a symbol", `"Adults 20"`, "$20", "$", "prefix", "", []string{"20"}},
		{"punctuation around symbol", `"Price:$10."`, "$10", "$", "prefix", "", []string{"10"}},
		{"sign beats code", `"USD 10$"`, "10$", "$", "postfix", "", []string{"10"}},
		{"first symbol wins", `["$10","€20"]`, "$10 – $20", "$", "prefix", "", []string{"10", "20"}},
		{"symbol from any value", `["10","20€"]`, "10€ – 20€", "€", "postfix", "", []string{"10", "20"}},

		// Arrays and numbers.
		{"json numbers", `[10, 20.5]`, "$10 – $20.5", "$", "prefix", "", []string{"10", "20.5"}},
		{"exponent number", `1e3`, "$1000", "$", "prefix", "", []string{"1000"}},
		{"mixed array", `["Donation", 5]`, "$5", "$", "prefix", "", []string{"5"}},

		// Text only.
		{"text", `"Donation"`, "Donation", "", "", "", []string{}},
		{"text trimmed", `"  Pay what you can  "`, "Pay what you can", "", "", "", []string{}},
		{"several texts", `["Donation","Pay what you can","Donation"]`, "Donation, Pay what you can", "", "", "", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCost(decodeCost(t, tt.input))
			if err != nil {
				t.Fatalf("ParseCost(%s): %v", tt.input, err)
			}
			got, d := c.Format("$", "prefix")
			want := CostDetails{CurrencySymbol: tt.symbol, CurrencyCode: tt.code, CurrencyPosition: tt.position, Values: tt.values}
			if got != tt.cost || !reflect.DeepEqual(d, want) {
				t.Errorf("Format(%s) = %q %+v, want %q %+v", tt.input, got, d, tt.cost, want)
			}
		})
	}
}

func TestCostFormatDefaults(t *testing.T) {
	tests := []struct {
		name, raw, symbol, position string
		cost, gotSymbol, gotPos     string
	}{
		{"postfix default", "15", "€", "postfix", "15€", "€", "postfix"},
		{"WordPress suffix", "15", "€", "suffix", "15€", "€", "postfix"},
		{"unknown position", "15", "£", "left-ish", "£15", "£", "prefix"},
		{"letter default", "15", "CHF", "prefix", "CHF 15", "CHF", "prefix"},
		{"no default symbol", "15", "", "prefix", "15", "", ""},
		{"input symbol beats default", "15$", "€", "prefix", "15$", "$", "postfix"},
		{"range with postfix default", "0-30", "€", "postfix", "Free – 30€", "€", "postfix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, d := Cost{Values: []string{tt.raw}}.Format(tt.symbol, tt.position)
			if got != tt.cost || d.CurrencySymbol != tt.gotSymbol || d.CurrencyPosition != tt.gotPos {
				t.Errorf("Format(%q, %q) on %q = %q %+v, want %q %q %q", tt.symbol, tt.position, tt.raw, got, d, tt.cost, tt.gotSymbol, tt.gotPos)
			}
		})
	}
}

func TestParseCostInputs(t *testing.T) {
	tests := []struct {
		name string
		raw  any
		want []string
	}{
		{"nil", nil, nil},
		{"string trimmed", "  20$ ", []string{"20$"}},
		{"comma string not split", "25,55", []string{"25,55"}},
		{"json number", json.Number("15"), []string{"15"}},
		{"json number long", json.Number("123456789012345678901234567890.5"), []string{"123456789012345678901234567890.5"}},
		{"json number exponent", json.Number("2.5E2"), []string{"250"}},
		{"json negative zero", json.Number("-0"), []string{"0"}},
		{"float", 12.5, []string{"12.5"}},
		{"float zero", 0.0, []string{"0"}},
		{"float32", float32(0.1), []string{"0.1"}},
		{"int", 7, []string{"7"}},
		{"uint64", uint64(9), []string{"9"}},
		{"form values", []string{"10$", "", " 20$ "}, []string{"10$", "20$"}},
		{"any list", []any{"10", json.Number("20"), nil, 30.0}, []string{"10", "20", "30"}},
		{"fifty values", make([]string, 50), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCost(tt.raw)
			if err != nil {
				t.Fatalf("ParseCost(%#v): %v", tt.raw, err)
			}
			if !reflect.DeepEqual(c.Values, tt.want) {
				t.Errorf("ParseCost(%#v) = %#v, want %#v", tt.raw, c.Values, tt.want)
			}
		})
	}
}

func TestParseCostErrors(t *testing.T) {
	tests := []struct {
		name   string
		raw    any
		reason string // a fragment of the message
	}{
		{"bool", true, "text, a number"},
		{"false", false, "text, a number"},
		{"object", map[string]any{"a": 1}, "not an object"},
		{"object in list", []any{"10", map[string]any{}}, "not objects"},
		{"nested list", []any{"10", []any{"20"}}, "nested"},
		{"bool in list", []any{true}, "text, a number"},
		{"struct", struct{}{}, "text, a number"},
		{"negative json number", json.Number("-5"), "negative"},
		{"negative exponent number", json.Number("-5e1"), "negative"},
		{"negative float", -1.5, "negative"},
		{"negative int", -3, "negative"},
		{"huge exponent", json.Number("1e400"), "finite"},
		{"not a number", json.Number("abc"), "finite"},
		{"NaN", nanFloat(), "finite"},
		{"too many values", make([]string, 51), "50 values"},
		{"too long", strings.Repeat("9", 1001), "1000 characters"},
		{"too long in total", []string{strings.Repeat("a", 600), strings.Repeat("b", 401)}, "1000 characters"},
		{"blanks count", strings.Repeat(" ", 1001), "1000 characters"},
		{"invalid UTF-8", "20\xff$", "UTF-8"},
		{"NUL", "20\x00$", "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCost(tt.raw)
			if err == nil {
				t.Fatalf("ParseCost(%#v) succeeded, want an error", tt.raw)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("ParseCost(%#v) error %q does not mention %q", tt.raw, err, tt.reason)
			}
		})
	}
}

func nanFloat() float64 {
	zero := 0.0
	return zero / zero
}

func TestParseCostLimitIsInclusive(t *testing.T) {
	if _, err := ParseCost(strings.Repeat("9", 1000)); err != nil {
		t.Fatalf("1000 characters should be accepted: %v", err)
	}
	if _, err := ParseCost(strings.Repeat("€", 1000)); err != nil {
		t.Fatalf("the limit counts characters, not bytes: %v", err)
	}
}

func TestCostDetailsJSON(t *testing.T) {
	_, d := Cost{}.Format("$", "prefix")
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"currency_symbol":"","currency_code":"","currency_position":"","values":[]}`; string(b) != want {
		t.Errorf("empty cost_details = %s, want %s", b, want)
	}

	b, err = json.Marshal(RedactedCostDetails())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"currency_symbol":"","currency_code":"","currency_position":"","values":[]}`; string(b) != want {
		t.Errorf("redacted cost_details = %s, want %s", b, want)
	}

	_, d = Cost{Values: []string{"0$", "20$", "30$"}}.Format("$", "prefix")
	b, err = json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"currency_symbol":"$","currency_code":"","currency_position":"postfix","values":["0","20","30"]}`; string(b) != want {
		t.Errorf("cost_details = %s, want %s", b, want)
	}
}

// TestCostFormatStoredValues covers values loaded from storage that did not
// go through ParseCost: Format must cope with anything.
func TestCostFormatStoredValues(t *testing.T) {
	for _, vals := range [][]string{
		nil,
		{""},
		{"\xff\xfe"},
		{"..,,.."},
		{",5"},
		{"5,"},
		{"$"},
		{strings.Repeat("1,", 500)},
		{strings.Repeat("free ", 200)},
	} {
		cost, d := Cost{Values: vals}.Format("$", "prefix")
		if d.Values == nil {
			t.Errorf("Format(%q): values is nil", vals)
		}
		if !utf8.ValidString(cost) && utf8.ValidString(strings.Join(vals, "")) {
			t.Errorf("Format(%q): invalid UTF-8 output %q", vals, cost)
		}
	}
}

// FuzzParseCostFormat checks that no input makes ParseCost or Format panic,
// that every reported value is a plain decimal string in ascending order, and
// that the output is valid UTF-8. The input is a JSON document, decoded as the
// request binder does, so arrays, numbers and strings are all reached.
func FuzzParseCostFormat(f *testing.F) {
	for _, s := range []string{
		`"20$"`, `["0$","20$","30$"]`, `"23"`, `""`, `null`, `"Free"`, `"10-20"`, `"25,55"`,
		`"€ 15"`, `"USD 15"`, `"1.234,56 €"`, `[1, 2.5, "3"]`, `1e400`, `-3`, `true`, `{"a":1}`,
		`[["x"]]`, `"Free – 30$"`, `".50"`, `"1,000,000.5"`, `"10,20,30"`, `"₹500"`,
	} {
		f.Add(s, "$", "prefix")
	}
	f.Add(`"15"`, "€", "postfix")
	f.Add(`"15"`, "", "")
	f.Fuzz(func(t *testing.T, js, symbol, position string) {
		dec := json.NewDecoder(bytes.NewReader([]byte(js)))
		dec.UseNumber()
		var raw any
		if err := dec.Decode(&raw); err != nil {
			// Not JSON: use it as a form value, the other way a cost arrives.
			raw = js
		}
		c, err := ParseCost(raw)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if len(c.Values) > maxCostValues {
			t.Fatalf("%d values accepted", len(c.Values))
		}
		cost, d := c.Format(symbol, position)
		if d.Values == nil {
			t.Fatal("values is nil")
		}
		for i, v := range d.Values {
			if !isPlainDecimal(v) {
				t.Fatalf("value %q is not a plain decimal", v)
			}
			if i > 0 {
				a, b := parsePlain(d.Values[i-1]), parsePlain(v)
				if compareNumbers(a, b) >= 0 {
					t.Fatalf("values not strictly ascending: %q", d.Values)
				}
			}
		}
		if utf8.ValidString(symbol) && !utf8.ValidString(cost) {
			t.Fatalf("output is not valid UTF-8: %q", cost)
		}
		if len(d.Values) == 0 && d.CurrencySymbol != "" {
			t.Fatalf("symbol %q reported without values", d.CurrencySymbol)
		}
		if len(d.Values) > 0 && cost == "" {
			t.Fatalf("values %q but empty cost", d.Values)
		}
		if d.CurrencyPosition != "" && d.CurrencyPosition != CurrencyPrefix && d.CurrencyPosition != CurrencyPostfix {
			t.Fatalf("position %q", d.CurrencyPosition)
		}
	})
}

func parsePlain(s string) costNumber {
	i, f, _ := strings.Cut(s, ".")
	return newCostNumber(i, f)
}
