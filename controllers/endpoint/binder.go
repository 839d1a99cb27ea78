package endpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/go-playground/validator/v10"

	"calendar/models"
)

// Opt is one request parameter: whether it was sent with a value, whether it was sent as JSON null, and its
// decoded value. Pointer-free so that "omitted", "null" and "empty" stay three different things.
type Opt[T any] struct {
	Set  bool // sent with a non-null value that decoded
	Null bool // sent as JSON null
	V    T
}

// Or returns the value when it was sent, else def.
func (o Opt[T]) Or(def T) T {
	if o.Set {
		return o.V
	}
	return def
}

// Ptr returns the value when it was sent, else nil.
func (o Opt[T]) Ptr() *T {
	if o.Set {
		return &o.V
	}
	return nil
}

// ParamDecoder is implemented by parameter types with their own syntax (dates, linked records, cost…).
// DecodeParam returns a human-readable reason when raw is not acceptable.
type ParamDecoder interface {
	DecodeParam(raw any) error
}

// ParamSchema is implemented by parameter types that describe themselves for the index and the OpenAPI document.
type ParamSchema interface {
	ParamSchema() Schema
}

// Schema is the JSON-schema description of a parameter, as the namespace index and /doc publish it.
type Schema struct {
	Type   string   `json:"type,omitempty"`
	Format string   `json:"format,omitempty"`
	Items  *Schema  `json:"items,omitempty"`
	Enum   []string `json:"enum,omitempty"`
	// OneOf lists alternative shapes for parameters that accept several (IDs or objects, a value or a list).
	OneOf []Schema `json:"oneOf,omitempty"`
}

// Arg describes one declared parameter of an endpoint.
type Arg struct {
	Name        string
	In          string // "path" for path parameters, else "" (body or query)
	Description string
	Default     any
	Required    bool
	Schema      Schema
	// MaxLength is the longest text the parameter takes, in characters (each item's, for lists); 0 when it takes
	// no text. See MaxLengths.
	MaxLength int
}

// field is implemented by *Opt[T]; it lets the binder fill and describe fields without knowing T.
type field interface {
	decodeRaw(raw any) error
	markNull()
	schema() Schema
}

func (o *Opt[T]) markNull() { o.Null = true }

func (o *Opt[T]) decodeRaw(raw any) error {
	if d, ok := any(&o.V).(ParamDecoder); ok {
		if err := d.DecodeParam(raw); err != nil {
			return err
		}
		o.Set = true
		return nil
	}
	v, err := decodeBuiltin(reflect.TypeFor[T](), raw)
	if err != nil {
		return err
	}
	o.V, o.Set = v.(T), true // v is nil only for T = any with raw nil, which never reaches here
	return nil
}

func (o *Opt[T]) schema() Schema {
	if d, ok := any(&o.V).(ParamSchema); ok {
		return d.ParamSchema()
	}
	return builtinSchema(reflect.TypeFor[T]())
}

var (
	typeString  = reflect.TypeOf("")
	typeInt64   = reflect.TypeOf(int64(0))
	typeFloat64 = reflect.TypeOf(float64(0))
	typeBool    = reflect.TypeOf(false)
	typeInt64s  = reflect.TypeOf([]int64(nil))
	typeStrings = reflect.TypeOf([]string(nil))
	typeAny     = reflect.TypeOf((*any)(nil)).Elem()
)

// ErrNotInteger is the reason given for a parameter that must be an integer and is not.
var ErrNotInteger = errors.New("must be an integer")

// DecodeAs decodes raw as T, one of the built-in parameter types (string, int64, float64, bool, []int64,
// []string, any), for parameter types that wrap one.
func DecodeAs[T any](raw any) (T, error) {
	v, err := decodeBuiltin(reflect.TypeFor[T](), raw)
	if err != nil {
		var zero T
		return zero, err
	}
	t, _ := v.(T) // v is nil only for T = any with raw nil
	return t, nil
}

// SchemaOf is the schema of T, one of the built-in parameter types.
func SchemaOf[T any]() Schema { return builtinSchema(reflect.TypeFor[T]()) }

func decodeBuiltin(t reflect.Type, raw any) (any, error) {
	switch t {
	case typeString:
		return DecodeString(raw)
	case typeInt64:
		return DecodeInt(raw)
	case typeFloat64:
		return DecodeFloat(raw)
	case typeBool:
		return DecodeBool(raw)
	case typeInt64s:
		return DecodeIntList(raw)
	case typeStrings:
		return DecodeStringList(raw)
	case typeAny:
		return raw, nil
	}
	panic(fmt.Sprintf("endpoint: no decoder for parameter type %s", t))
}

func builtinSchema(t reflect.Type) Schema {
	switch t {
	case typeString:
		return Schema{Type: "string"}
	case typeInt64:
		return Schema{Type: "integer"}
	case typeFloat64:
		return Schema{Type: "number", Format: "double"}
	case typeBool:
		return Schema{Type: "boolean"}
	case typeInt64s:
		return Schema{Type: "array", Items: &Schema{Type: "integer"}}
	case typeStrings:
		return Schema{Type: "array", Items: &Schema{Type: "string"}}
	}
	return Schema{}
}

// DecodeString accepts a string that is valid UTF-8 without NUL or other control characters (tabs and line
// breaks are fine): databases refuse NUL bytes, and control characters are never meant.
func DecodeString(raw any) (string, error) {
	s, ok := raw.(string)
	if !ok {
		return "", errors.New("must be a string")
	}
	if !utf8.ValidString(s) {
		return "", errors.New("must be valid UTF-8")
	}
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return "", errors.New("must not contain control characters")
		}
	}
	return s, nil
}

// DecodeInt accepts a JSON integer or a string of digits (with an optional sign), within int64.
func DecodeInt(raw any) (int64, error) {
	var s string
	switch v := raw.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = strings.TrimSpace(v)
	default:
		return 0, ErrNotInteger
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ErrNotInteger
	}
	return n, nil
}

// DecodeFloat accepts a finite JSON number or numeric string.
func DecodeFloat(raw any) (float64, error) {
	var s string
	switch v := raw.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = strings.TrimSpace(v)
	default:
		return 0, errors.New("must be a number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("must be a number")
	}
	return f, nil
}

// DecodeBool accepts the boolean forms: true, false, 1, 0 and the strings "true", "false", "1", "0",
// "yes", "no", "on", "off" (any case).
func DecodeBool(raw any) (bool, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case json.Number:
		switch v.String() {
		case "1":
			return true, nil
		case "0":
			return false, nil
		}
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1", "yes", "on":
			return true, nil
		case "false", "0", "no", "off":
			return false, nil
		}
	}
	return false, errors.New("must be a boolean (true, false, 1, 0, yes, no, on, off)")
}

// MaxListItems bounds list parameters so that a request cannot make a query of unbounded size.
const MaxListItems = 500

// listItems splits a list parameter given as a JSON array, a form list (a[]=1&a[]=2 or repeated keys) or CSV.
func listItems(raw any) ([]any, error) {
	var items []any
	switch v := raw.(type) {
	case []any:
		for _, item := range v {
			if s, ok := item.(string); ok && strings.Contains(s, ",") {
				for _, part := range strings.Split(s, ",") {
					items = append(items, part)
				}
				continue
			}
			items = append(items, item)
		}
	case string:
		if strings.TrimSpace(v) == "" {
			return nil, nil
		}
		for _, part := range strings.Split(v, ",") {
			items = append(items, part)
		}
	case json.Number:
		items = []any{v}
	default:
		return nil, errors.New("must be a list (a JSON array, repeated parameters or comma-separated values)")
	}
	if len(items) > MaxListItems {
		return nil, fmt.Errorf("must have at most %d items", MaxListItems)
	}
	return items, nil
}

// DecodeIntList accepts a list of positive integers in any list form.
func DecodeIntList(raw any) ([]int64, error) {
	items, err := listItems(raw)
	if err != nil {
		return nil, err
	}
	out := make([]int64, 0, len(items))
	for _, item := range items {
		if s, ok := item.(string); ok {
			item = strings.TrimSpace(s)
		}
		n, err := DecodeInt(item)
		if err != nil || n <= 0 {
			return nil, errors.New("must be a list of positive integers")
		}
		out = append(out, n)
	}
	return out, nil
}

// DecodeStringList accepts a list of strings (or numbers, kept as their text) in any list form, trimming each
// item and dropping empty ones.
func DecodeStringList(raw any) ([]string, error) {
	items, err := listItems(raw)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for _, item := range items {
		if n, ok := item.(json.Number); ok {
			item = n.String()
		}
		s, err := DecodeString(item)
		if err != nil {
			return nil, errors.New("must be a list of strings or numbers")
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Bind fills the request struct in (a pointer to a struct of Opt fields tagged `param`) from the request's
// parameters, then checks the required ones and the `validate` constraints. It reports, in this order, a path
// parameter of the wrong shape (404 rest_no_route), the missing required parameters (one
// rest_missing_callback_param error naming them all), and every invalid parameter (one rest_invalid_param error).
func Bind(c *gin.Context, in any, required []string) error {
	p, err := RequestParams(c)
	if err != nil {
		return err
	}
	invalid := map[string]string{}
	if err := bindFields(c, p, reflect.ValueOf(in).Elem(), invalid); err != nil {
		return err
	}
	var missing []string
	for _, name := range required {
		if !p.Has(name) && c.Param(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return models.Missing(missing...)
	}
	for name, reason := range validateStruct(in) {
		if _, seen := invalid[name]; !seen {
			invalid[name] = reason
		}
	}
	if len(invalid) > 0 {
		return models.Invalid(invalid)
	}
	return nil
}

// paramField is one `param`-tagged field of a request struct: its parameter name, its tags, its type and where it
// sits (through embedded structs such as Paging).
type paramField struct {
	name  string
	tag   reflect.StructTag
	typ   reflect.Type
	index []int
}

// paramFieldsCache holds paramFields' answer per request struct type.
var paramFieldsCache sync.Map // reflect.Type → []paramField

// paramFields is the one walk over the `param` tags of a request struct type, descending into embedded structs
// (shared parameter groups such as Paging). Binding, Sent and Describe all read a struct through it.
func paramFields(t reflect.Type) []paramField {
	if cached, ok := paramFieldsCache.Load(t); ok {
		return cached.([]paramField)
	}
	var fields []paramField
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			index := append(append([]int(nil), prefix...), i)
			name := sf.Tag.Get("param")
			if name == "" {
				if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
					walk(sf.Type, index)
				}
				continue
			}
			fields = append(fields, paramField{name: name, tag: sf.Tag, typ: sf.Type, index: index})
		}
	}
	walk(t, nil)
	paramFieldsCache.Store(t, fields)
	return fields
}

// bindFields fills the tagged fields of v and collects invalid parameters. Path parameters are read from c; with
// a nil c (an inline object) there are none.
func bindFields(c *gin.Context, p *Params, v reflect.Value, invalid map[string]string) error {
	for _, pf := range paramFields(v.Type()) {
		fv := v.FieldByIndex(pf.index)
		f := fv.Addr().Interface().(field)
		if pf.tag.Get("in") == "path" {
			if c == nil {
				continue
			}
			if err := f.decodeRaw(c.Param(pf.name)); err != nil {
				return models.NoRoute()
			}
			continue
		}
		raw, ok := p.Lookup(pf.name)
		switch {
		case !ok:
		case raw == nil:
			f.markNull()
		default:
			if err := f.decodeRaw(raw); err != nil {
				invalid[pf.name] = err.Error()
			} else if reason := checkLength(pf.name, pf.tag.Get("validate"), fv.FieldByName("V").Interface(), raw); reason != "" {
				invalid[pf.name] = reason
			} else if enum := pf.tag.Get("enum"); enum != "" && !inEnum(fv.FieldByName("V").Interface(), enum) {
				invalid[pf.name] = "must be one of: " + strings.ReplaceAll(enum, ",", ", ")
			}
		}
	}
	return nil
}

// BindObject fills the request struct in from a decoded JSON object, as Bind fills it from a request (an inline
// record inside another write's parameters), and returns every invalid parameter, `validate` constraints
// included. Required parameters are the caller's to check.
func BindObject(values map[string]any, in any) map[string]string {
	invalid := map[string]string{}
	_ = bindFields(nil, &Params{values: values}, reflect.ValueOf(in).Elem(), invalid) // errors only for path parameters
	for name, reason := range validateStruct(in) {
		if _, seen := invalid[name]; !seen {
			invalid[name] = reason
		}
	}
	return invalid
}

// Sent names the parameters of a bound request struct that were sent, as values or as JSON null.
func Sent(in any) map[string]bool {
	v := reflect.ValueOf(in).Elem()
	sent := map[string]bool{}
	for _, pf := range paramFields(v.Type()) {
		if f := v.FieldByIndex(pf.index); f.FieldByName("Set").Bool() || f.FieldByName("Null").Bool() {
			sent[pf.name] = true
		}
	}
	return sent
}

// inEnum tells whether a decoded string (or every string of a list) is one of the comma-separated values.
func inEnum(v any, enum string) bool {
	allowed := strings.Split(enum, ",")
	switch t := v.(type) {
	case string:
		return slices.Contains(allowed, t)
	case []string:
		for _, s := range t {
			if !slices.Contains(allowed, s) {
				return false
			}
		}
	}
	return true
}

// Describe lists the parameters a request struct declares, for the namespace index and the OpenAPI document.
func Describe(t reflect.Type, required []string) []Arg {
	if t == nil {
		return nil
	}
	isRequired := map[string]bool{}
	for _, r := range required {
		isRequired[r] = true
	}
	return describeFields(t, isRequired)
}

func describeFields(t reflect.Type, isRequired map[string]bool) []Arg {
	var args []Arg
	for _, pf := range paramFields(t) {
		f := reflect.New(pf.typ).Interface().(field)
		arg := Arg{Name: pf.name, In: pf.tag.Get("in"), Description: pf.tag.Get("doc"), Schema: f.schema(),
			Required: isRequired[pf.name] || pf.tag.Get("in") == "path"}
		if enum := pf.tag.Get("enum"); enum != "" {
			arg.Schema.Enum = strings.Split(enum, ",")
		}
		if def, ok := pf.tag.Lookup("default"); ok {
			arg.Default = TypedDefault(arg.Schema.Type, def)
		}
		arg.MaxLength = textMaxLength(pf.name, pf.tag.Get("validate"), arg.Schema)
		args = append(args, arg)
	}
	return args
}

// TypedDefault is a default or enum value from a struct tag as the JSON value of the parameter's schema type.
func TypedDefault(typ, def string) any {
	switch typ {
	case "integer":
		if n, err := strconv.ParseInt(def, 10, 64); err == nil {
			return n
		}
	case "boolean":
		if b, err := strconv.ParseBool(def); err == nil {
			return b
		}
	case "number":
		if f, err := strconv.ParseFloat(def, 64); err == nil {
			return f
		}
	}
	return def
}

var (
	validate     *validator.Validate
	validateOnce sync.Once
)

// validateStruct runs the `validate` tags of a request struct on the values that were sent, and returns each
// failing parameter with a reason.
func validateStruct(in any) map[string]string {
	validateOnce.Do(func() {
		validate = validator.New(validator.WithRequiredStructEnabled())
		validate.RegisterTagNameFunc(func(sf reflect.StructField) string { return sf.Tag.Get("param") })
		validate.RegisterCustomTypeFunc(optValue, Opt[string]{}, Opt[int64]{}, Opt[float64]{}, Opt[bool]{},
			Opt[[]int64]{}, Opt[[]string]{})
	})
	err := validate.Struct(in)
	var fieldErrors validator.ValidationErrors
	if !errors.As(err, &fieldErrors) {
		return nil
	}
	out := map[string]string{}
	for _, fe := range fieldErrors {
		out[fe.Field()] = reason(fe)
	}
	return out
}

// optValue hands validator the value of an Opt that was sent, and nil for one that was not (so omitempty skips it).
// Numbers are handed as pointers: validator's omitempty then skips only numbers that were not sent, so that a sent
// 0 meets its constraints (page=0 is 400); a sent "" is still skipped, so that "" can clear a validated string.
func optValue(v reflect.Value) any {
	if !v.FieldByName("Set").Bool() {
		return nil
	}
	value := v.FieldByName("V")
	if k := value.Kind(); k == reflect.Int64 || k == reflect.Float64 {
		p := reflect.New(value.Type())
		p.Elem().Set(value)
		return p.Interface()
	}
	return value.Interface()
}

func reason(fe validator.FieldError) string {
	switch fe.Tag() {
	case "max":
		if fe.Kind() == reflect.String {
			return "must be at most " + fe.Param() + " characters long"
		}
		return "must be at most " + fe.Param()
	case "min":
		if fe.Kind() == reflect.String {
			return "must be at least " + fe.Param() + " characters long"
		}
		return "must be at least " + fe.Param()
	case "gt":
		return "must be greater than " + fe.Param()
	case "url", "http_url":
		return "must be a valid URL"
	case "email":
		return "must be a valid e-mail address"
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "required":
		return "must not be empty"
	}
	return "is not valid (" + fe.Tag() + ")"
}
