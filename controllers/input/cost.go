package input

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/currency"
)

// Limits on a cost input. The Events Calendar accepts anything; these bounds keep a
// free-text field from becoming a storage or CPU sink while staying far above
// what any real price list needs.
const (
	maxCostValues = 50
	maxCostChars  = 1000
)

// Currency positions as The Events Calendar reports them in cost_details.
const (
	CurrencyPrefix  = "prefix"
	CurrencyPostfix = "postfix"
)

// costRangeSeparator joins the low and high end of a cost range: space, U+2013
// EN DASH, space, exactly as The Events Calendar renders it.
const costRangeSeparator = " \u2013 "

// costFreeLabel is what a zero cost is shown as.
const costFreeLabel = "Free"

// Cost is an event's cost as the user gave it: one or more free-text values
// ("20$", "€ 15", "Free", "10-20", "25,55"). Values are kept as given (trimmed)
// so that formatting rules can change without losing what the user wrote; the
// caller stores them.
type Cost struct {
	Values []string
}

// errCostType is the reason given for any input shape a cost cannot take.
var errCostType = errors.New("cost must be text, a number, or a list of texts and numbers")

// ParseCost turns a raw request value into a Cost. raw is what a JSON decoder
// (with UseNumber: json.Number) or a form/query parser produced: string,
// json.Number, float64 (or another Go number), []any of those, or []string.
// nil, "" and [] mean no cost. Strings are not split on commas, because a
// comma is a decimal separator in many locales ("25,55"); lists must come as
// real arrays. Anything else (booleans, objects, nested arrays, negative or
// non-finite numbers, invalid UTF-8, NUL bytes, more than 50 values or more
// than 1000 characters in all) is an error whose message is a human-readable
// reason suitable for rest_invalid_param's data.params.
func ParseCost(raw any) (Cost, error) {
	var items []any
	switch v := raw.(type) {
	case nil:
		return Cost{}, nil
	case []any:
		items = v
	case []string:
		items = make([]any, len(v))
		for i, s := range v {
			items[i] = s
		}
	case map[string]any, map[string]string:
		return Cost{}, errors.New("cost must be text, a number, or a list of texts and numbers, not an object")
	default:
		items = []any{raw}
	}
	if len(items) > maxCostValues {
		return Cost{}, errors.New("cost must not have more than " + strconv.Itoa(maxCostValues) + " values")
	}

	var (
		values []string
		chars  int
	)
	for _, item := range items {
		s, err := costScalar(item)
		if err != nil {
			return Cost{}, err
		}
		if !utf8.ValidString(s) {
			return Cost{}, errors.New("cost must be valid UTF-8 text")
		}
		if strings.IndexByte(s, 0) >= 0 {
			// Databases reject NUL in text columns; refuse it here so the
			// write fails as a 400 instead of a 500.
			return Cost{}, errors.New("cost must not contain NUL characters")
		}
		// Count before trimming so a body of blanks cannot slip past the limit.
		chars += utf8.RuneCountInString(s)
		if chars > maxCostChars {
			return Cost{}, errors.New("cost must not be longer than " + strconv.Itoa(maxCostChars) + " characters")
		}
		if s = strings.TrimSpace(s); s != "" {
			values = append(values, s)
		}
	}
	return Cost{Values: values}, nil
}

// costScalar converts one cost item to its text form.
func costScalar(item any) (string, error) {
	switch v := item.(type) {
	case nil:
		// A null inside a list counts as an empty value, like "".
		return "", nil
	case string:
		return v, nil
	case json.Number:
		return costNumberText(string(v))
	case float64:
		return costFloatText(v)
	case float32:
		// Format with 32-bit precision so 0.1 stays "0.1".
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'f', -1, 32), 64)
		return costFloatText(f)
	case int:
		return costIntText(int64(v))
	case int8:
		return costIntText(int64(v))
	case int16:
		return costIntText(int64(v))
	case int32:
		return costIntText(int64(v))
	case int64:
		return costIntText(v)
	case uint:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint8:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint16:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint32:
		return strconv.FormatUint(uint64(v), 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case []any, []string:
		return "", errors.New("cost lists must not be nested")
	case map[string]any, map[string]string:
		return "", errors.New("cost values must be text or numbers, not objects")
	default:
		// Booleans land here too: true/false carry no price.
		return "", errCostType
	}
}

// costNumberText renders a JSON number as plain decimal text. Plain decimals
// are kept digit for digit (no float rounding of "19.99" or of very long
// numbers); exponent forms go through float64.
func costNumberText(n string) (string, error) {
	if isPlainDecimal(n) {
		return n, nil
	}
	if strings.HasPrefix(n, "-") && isPlainDecimal(n[1:]) {
		if isZeroDecimal(n[1:]) {
			return "0", nil
		}
		return "", errors.New("cost must not be negative")
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return "", errors.New("cost number is not a finite number")
	}
	return costFloatText(f)
}

func costFloatText(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", errors.New("cost number is not a finite number")
	}
	if f == 0 {
		// Also turns -0 into "0".
		return "0", nil
	}
	if f < 0 {
		return "", errors.New("cost must not be negative")
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

func costIntText(i int64) (string, error) {
	if i < 0 {
		return "", errors.New("cost must not be negative")
	}
	return strconv.FormatInt(i, 10), nil
}

// isPlainDecimal reports whether s is digits with at most one '.' followed by digits.
func isPlainDecimal(s string) bool {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) {
		return false
	}
	return !hasDot || (frac != "" && allDigits(frac))
}

func isZeroDecimal(s string) bool {
	return strings.Trim(s, "0.") == ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CostDetails is the cost_details object of an event.
type CostDetails struct {
	CurrencySymbol   string   `json:"currency_symbol"`
	CurrencyCode     string   `json:"currency_code"`
	CurrencyPosition string   `json:"currency_position" schema:"enum=prefix|postfix|"`
	Values           []string `json:"values" schema:"pattern=^-?\\d+(\\.\\d+)?$"` // never nil: [] when no cost
}

// RedactedCostDetails is the cost_details that replaces the real one on a
// password-protected record seen in a list or embed.
func RedactedCostDetails() CostDetails {
	return CostDetails{Values: []string{}}
}

// Format renders the cost (ranges joined with an en dash, 0 as "Free", the site currency when none is given) and returns
// the output `cost` string with its cost_details.
//
// Every number in every value is extracted (a range "10-20" gives both ends,
// the word "free" gives 0), duplicates are dropped, and the rest is sorted
// numerically into cost_details.values as plain decimal strings ("25,55" →
// "25.55"). The output string is built from the minimum and maximum: 0 is
// "Free", a range is joined with " – ", and each end carries the currency
// symbol at its position. The symbol and position come from the input (the
// first value that has one: "20$" → "$" postfix, "€15" → "€" prefix,
// "USD 15" → "USD" prefix, which is also reported as currency_code); when the
// input has none, defaultSymbol and defaultPosition (the site's currency) are
// used. currency_symbol and currency_position report what was used, and are ""
// when there is no numeric value to apply them to. Values with text but no
// number ("Donation") give that text as the cost and values []. No cost gives
// "" and values [].
func (c Cost) Format(defaultSymbol, defaultPosition string) (string, CostDetails) {
	details := CostDetails{Values: []string{}}

	var (
		nums  []costNumber
		texts []string
		sym   costSymbol
	)
	for _, raw := range c.Values {
		v := strings.TrimSpace(raw)
		if v == "" {
			continue
		}
		found, s := scanCostValue(v)
		if len(found) == 0 {
			texts = appendUnique(texts, v)
			continue
		}
		for _, n := range found {
			nums = appendUniqueNumber(nums, n)
		}
		if sym.text == "" && s.text != "" {
			sym = s
		}
	}

	if len(nums) == 0 {
		// Text only: shown as written. The plugin keeps a single text cost the
		// same way; several are joined so that none is silently lost.
		return strings.Join(texts, ", "), details
	}

	sortNumbers(nums)
	for _, n := range nums {
		details.Values = append(details.Values, n.text)
	}

	if sym.text == "" {
		sym = costSymbol{text: strings.TrimSpace(defaultSymbol), position: normalizeCurrencyPosition(defaultPosition)}
	}
	if sym.text != "" {
		details.CurrencySymbol = sym.text
		details.CurrencyPosition = sym.position
		details.CurrencyCode = isoCurrencyCode(sym.text)
	}

	lo, hi := nums[0], nums[len(nums)-1]
	out := formatAmount(lo, sym)
	if compareNumbers(lo, hi) != 0 {
		out += costRangeSeparator + formatAmount(hi, sym)
	}
	return out, details
}

// normalizeCurrencyPosition maps the site setting to The Events Calendar's two
// values. WordPress stores "suffix" for what the REST API calls "postfix";
// anything unknown falls back to prefix, the plugin's default.
func normalizeCurrencyPosition(p string) string {
	switch strings.ToLower(strings.TrimSpace(p)) {
	case CurrencyPostfix, "suffix", "after", "right":
		return CurrencyPostfix
	default:
		return CurrencyPrefix
	}
}

// costNumber is one extracted amount: text is the normalised decimal
// ("25.55", "1000", "20.00"); intPart and frac are the pieces compared.
type costNumber struct {
	text    string
	intPart string // no leading zeros, "0" for zero
	frac    string // trailing zeros removed, for comparison only
}

func newCostNumber(intDigits, fracDigits string) costNumber {
	intDigits = strings.TrimLeft(intDigits, "0")
	if intDigits == "" {
		intDigits = "0"
	}
	n := costNumber{text: intDigits, intPart: intDigits, frac: strings.TrimRight(fracDigits, "0")}
	if fracDigits != "" {
		n.text += "." + fracDigits
	}
	return n
}

func (n costNumber) isZero() bool { return n.intPart == "0" && n.frac == "" }

// compareNumbers compares two amounts exactly, whatever their length, so that
// neither float rounding nor overflow can reorder or merge them.
func compareNumbers(a, b costNumber) int {
	if len(a.intPart) != len(b.intPart) {
		if len(a.intPart) < len(b.intPart) {
			return -1
		}
		return 1
	}
	if c := strings.Compare(a.intPart, b.intPart); c != 0 {
		return c
	}
	// With trailing zeros removed, lexical order of fractions is numeric order.
	return strings.Compare(a.frac, b.frac)
}

func sortNumbers(nums []costNumber) {
	// Insertion sort: at most a few hundred numbers, and it is stable.
	for i := 1; i < len(nums); i++ {
		for j := i; j > 0 && compareNumbers(nums[j-1], nums[j]) > 0; j-- {
			nums[j-1], nums[j] = nums[j], nums[j-1]
		}
	}
}

// appendUniqueNumber keeps the first spelling of each amount ("20" and
// "20.00" are one price), as the plugin keys costs by numeric value.
func appendUniqueNumber(nums []costNumber, n costNumber) []costNumber {
	for _, m := range nums {
		if compareNumbers(m, n) == 0 {
			return nums
		}
	}
	return append(nums, n)
}

func appendUnique(list []string, s string) []string {
	for _, t := range list {
		if t == s {
			return list
		}
	}
	return append(list, s)
}

// costSymbol is a currency symbol and where it goes.
type costSymbol struct {
	text     string
	position string
}

// formatAmount writes one end of the range. Symbols that end in an alphabetic
// letter next to the number ("USD", "kr") get a space so that "USD 15" does
// not become "USD15"; signs ("$", "€", "US$") and CJK symbols ("円") sit
// against the number as they are usually written and as the plugin does.
func formatAmount(n costNumber, sym costSymbol) string {
	if n.isZero() {
		return costFreeLabel
	}
	if sym.text == "" {
		return n.text
	}
	if sym.position == CurrencyPostfix {
		first, _ := utf8.DecodeRuneInString(sym.text)
		if isAlphabeticLetter(first) {
			return n.text + " " + sym.text
		}
		return n.text + sym.text
	}
	last, _ := utf8.DecodeLastRuneInString(sym.text)
	if isAlphabeticLetter(last) {
		return sym.text + " " + n.text
	}
	return sym.text + n.text
}

// isAlphabeticLetter reports whether r is a letter of a script that separates
// words with spaces.
func isAlphabeticLetter(r rune) bool {
	return unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
}

// isoCurrencyCode returns sym when it is an upper-case ISO 4217 code, the only
// case where the input says which currency it is; "$" could be any dollar.
func isoCurrencyCode(sym string) string {
	if len(sym) != 3 {
		return ""
	}
	for i := 0; i < 3; i++ {
		if sym[i] < 'A' || sym[i] > 'Z' {
			return ""
		}
	}
	if _, err := currency.ParseISO(sym); err != nil {
		return ""
	}
	return sym
}

// letterCurrencySymbols are common symbols made only of letters. Any other
// letters-only word next to a number ("Adults 20") is not taken as a symbol.
var letterCurrencySymbols = map[string]bool{
	"kr": true, "Kč": true, "zł": true, "Ft": true, "lei": true,
	"Rs": true, "Rp": true, "RM": true, "Fr": true, "円": true, "元": true,
}

// isCurrencySymbol decides whether a run of letters and currency signs next
// to a number is a currency symbol: short, and either containing a currency
// sign (Unicode Sc: "$", "€", "US$", "R$"), an upper-case ISO 4217 code
// ("EUR"), or a known letter symbol ("kr").
func isCurrencySymbol(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > 4 {
		return false
	}
	for _, r := range s {
		if unicode.Is(unicode.Sc, r) {
			return true
		}
	}
	return isoCurrencyCode(s) != "" || letterCurrencySymbols[s]
}

func isSymbolRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Sc, r)
}

// costToken is a number found in a value, with its byte span.
type costToken struct {
	start, end int
	nums       []costNumber
	free       bool // the word "free", which has no symbol next to it
}

// scanCostValue extracts the amounts of one value and the currency symbol
// written next to them, if any. A symbol directly before the first number is
// preferred (prefix), then one directly after the last (postfix); a candidate
// containing a currency sign wins over a letter code.
func scanCostValue(v string) ([]costNumber, costSymbol) {
	var tokens []costToken
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case isDigit(c):
			j := i
			for j < len(v) && (isDigit(v[j]) || ((v[j] == '.' || v[j] == ',') && j+1 < len(v) && isDigit(v[j+1]))) {
				j++
			}
			tokens = append(tokens, costToken{start: i, end: j, nums: parseNumberToken(v[i:j])})
			i = j
		case c == '.' && i+1 < len(v) && isDigit(v[i+1]) && (i == 0 || !isDigit(v[i-1])):
			// ".50" is fifty cents.
			j := i + 1
			for j < len(v) && isDigit(v[j]) {
				j++
			}
			tokens = append(tokens, costToken{start: i, end: j, nums: []costNumber{newCostNumber("0", v[i+1:j])}})
			i = j
		case isFreeWordAt(v, i):
			// "Free", "free – 30$": the plugin's own output reads back as the
			// range it came from.
			tokens = append(tokens, costToken{start: i, end: i + 4, nums: []costNumber{newCostNumber("0", "")}, free: true})
			i += 4
		default:
			i++
		}
	}
	if len(tokens) == 0 {
		return nil, costSymbol{}
	}

	var nums []costNumber
	for _, t := range tokens {
		nums = append(nums, t.nums...)
	}

	// Symbols are looked for around real numbers only: "Free" has none.
	var first, last *costToken
	for k := range tokens {
		if tokens[k].free {
			continue
		}
		if first == nil {
			first = &tokens[k]
		}
		last = &tokens[k]
	}
	if first == nil {
		return nums, costSymbol{}
	}
	pre := symbolBefore(v, first.start)
	post := symbolAfter(v, last.end)
	preOK, postOK := isCurrencySymbol(pre), isCurrencySymbol(post)
	switch {
	case preOK && (hasCurrencySign(pre) || !postOK || !hasCurrencySign(post)):
		return nums, costSymbol{text: pre, position: CurrencyPrefix}
	case postOK:
		return nums, costSymbol{text: post, position: CurrencyPostfix}
	}
	return nums, costSymbol{}
}

func hasCurrencySign(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Sc, r) {
			return true
		}
	}
	return false
}

// symbolBefore returns the run of letters and currency signs that ends at
// end, allowing blanks between it and the number ("€ 15").
func symbolBefore(v string, end int) string {
	i := end
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(v[:i])
		if r != ' ' && r != '\t' && r != '\u00a0' {
			break
		}
		i -= size
	}
	j := i
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(v[:j])
		if !isSymbolRune(r) {
			break
		}
		j -= size
	}
	return v[j:i]
}

// symbolAfter returns the run of letters and currency signs that starts at
// start, allowing blanks between the number and it ("15 €").
func symbolAfter(v string, start int) string {
	i := start
	for i < len(v) {
		r, size := utf8.DecodeRuneInString(v[i:])
		if r != ' ' && r != '\t' && r != '\u00a0' {
			break
		}
		i += size
	}
	j := i
	for j < len(v) {
		r, size := utf8.DecodeRuneInString(v[j:])
		if !isSymbolRune(r) {
			break
		}
		j += size
	}
	return v[i:j]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isFreeWordAt reports whether the word "free" (any case) starts at i and
// stands alone, not inside a longer word like "freedom" or "carefree".
func isFreeWordAt(v string, i int) bool {
	if i+4 > len(v) || !strings.EqualFold(v[i:i+4], "free") {
		return false
	}
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(v[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	if i+4 < len(v) {
		r, _ := utf8.DecodeRuneInString(v[i+4:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// parseNumberToken interprets digits joined by single '.' or ',' separators.
//
// The plugin reads a separator as the site locale says; without a locale the
// shape of the number decides:
//   - one separator followed by exactly three digits, after a non-zero group
//     of one to three digits, groups thousands ("1,000", "1.500" → 1000, 1500);
//   - any other single separator is a decimal point ("25,55", "20.00", "0,500");
//   - repeated separators of one kind group thousands when every group after
//     the first has three digits ("1,000,000");
//   - a last separator of the other kind after valid thousands groups is the
//     decimal point ("1,234.56", "1.234,56");
//   - anything else ("10,20,30", "1.2.3") is a list of whole numbers.
func parseNumberToken(tok string) []costNumber {
	var (
		groups []string
		seps   []byte
		start  int
	)
	for i := 0; i < len(tok); i++ {
		if tok[i] == '.' || tok[i] == ',' {
			groups = append(groups, tok[start:i])
			seps = append(seps, tok[i])
			start = i + 1
		}
	}
	groups = append(groups, tok[start:])

	switch n := len(seps); {
	case n == 0:
		return []costNumber{newCostNumber(tok, "")}
	case n == 1:
		if isThousandsGrouping(groups) {
			return []costNumber{newCostNumber(groups[0]+groups[1], "")}
		}
		return []costNumber{newCostNumber(groups[0], groups[1])}
	default:
		last := seps[n-1]
		same := true
		for _, s := range seps[:n-1] {
			if s != seps[0] {
				same = false
				break
			}
		}
		if same && last == seps[0] && isThousandsGrouping(groups) {
			return []costNumber{newCostNumber(strings.Join(groups, ""), "")}
		}
		if same && last != seps[0] && isThousandsGrouping(groups[:n]) {
			return []costNumber{newCostNumber(strings.Join(groups[:n], ""), groups[n])}
		}
	}
	nums := make([]costNumber, 0, len(groups))
	for _, g := range groups {
		nums = append(nums, newCostNumber(g, ""))
	}
	return nums
}

// isThousandsGrouping reports whether groups read as 1-3 digits (not starting
// with 0) followed by groups of exactly three digits.
func isThousandsGrouping(groups []string) bool {
	if len(groups) < 2 || len(groups[0]) > 3 || groups[0][0] == '0' {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}
