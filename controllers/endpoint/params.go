package endpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// maxFormMemory bounds what a multipart form may hold in memory; the body limits of middleware.Bodies cap the
// body at 1 MiB.
const maxFormMemory = 1 << 20

// Params are the parameters of one request, merged from the JSON body, the form body and the query string, highest
// priority first. Values are what JSON decoding gives (with json.Number for numbers), or for form and
// query parameters a string, a []any of strings (repeated keys and a[]=), or a map[string]any (a[b]=).
type Params struct {
	values map[string]any
}

// paramsKey is where the parsed parameters of a request are cached.
const paramsKey = "calendar.params"

// RequestParams parses (once per request) and returns the parameters of c.
func RequestParams(c *gin.Context) (*Params, error) {
	if p, ok := c.Get(paramsKey); ok {
		return p.(*Params), nil
	}
	p, err := parseParams(c)
	if err != nil {
		return nil, err
	}
	c.Set(paramsKey, p)
	return p, nil
}

func parseParams(c *gin.Context) (*Params, error) {
	values := map[string]any{}
	merge(values, formValues(c.Request.URL.Query()))

	body, err := readBody(c)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		// The header itself, not c.ContentType(): gin's drops the parameters, and with them multipart's boundary.
		mediaType, mediaParams, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
		if err != nil && mediaType == "" {
			mediaType, _, _ = mime.ParseMediaType(c.ContentType()) // a bad parameter does not hide the type
		}
		switch {
		case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
			fromJSON, err := decodeJSONObject(body)
			if err != nil {
				return nil, err
			}
			merge(values, fromJSON)
		case mediaType == "application/x-www-form-urlencoded":
			form, err := url.ParseQuery(string(body))
			if err != nil {
				return nil, models.Errorf(models.KindInvalid, "rest_invalid_form", "Invalid form body passed.")
			}
			merge(values, formValues(form))
		case mediaType == "multipart/form-data":
			form, err := multipart.NewReader(bytes.NewReader(body), mediaParams["boundary"]).ReadForm(maxFormMemory)
			if err != nil {
				return nil, models.Errorf(models.KindInvalid, "rest_invalid_form", "Invalid form body passed.")
			}
			merge(values, formValues(form.Value))
			_ = form.RemoveAll()
		}
	}
	return &Params{values: values}, nil
}

// readBody returns the request body and keeps it re-readable. It is the one place a body is read, on the first
// look at the parameters: endpoints that need credentials look only once the caller is known, so an anonymous
// write is refused before its body is read. The route's body limit and the cap on bodies read at once
// (middleware.Bodies) report through the read's error: 413 or 503.
func readBody(c *gin.Context) ([]byte, error) {
	if c.Request.Body == nil || c.Request.Body == http.NoBody {
		return nil, nil
	}
	var buf bytes.Buffer
	if n := c.Request.ContentLength; n > 0 && n <= maxFormMemory {
		buf.Grow(int(n) + 1) // one allocation of the declared size rather than doubling up to it
	}
	if _, err := buf.ReadFrom(c.Request.Body); err != nil {
		var e *models.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, models.Errorf(models.KindInvalid, "rest_invalid_body", "The request body could not be read.")
	}
	body := buf.Bytes()
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// decodeJSONObject decodes a JSON body. An empty or whitespace body counts as no parameters; a body
// that is not JSON, or is JSON but not an object, is 400 rest_invalid_json.
func decodeJSONObject(body []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalidJSON()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalidJSON()
	}
	switch obj := v.(type) {
	case map[string]any:
		return obj, nil
	case nil:
		return nil, nil
	}
	return nil, invalidJSON()
}

func invalidJSON() *models.Error {
	return models.Errorf(models.KindInvalid, "rest_invalid_json", "Invalid JSON body passed.")
}

// merge copies src into dst, overriding: the caller merges the lowest priority (the query string) first.
func merge(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}

// formValues turns form or query values into parameters, reading PHP-style brackets the way WordPress clients
// send them: a[]=1&a[]=2 is a list, a[b]=x an object, a[0][b]=x a list of objects. A key given several times
// without brackets is a list too. Hand-written because no maintained Go form library reads the PHP
// bracket convention into untyped values.
func formValues(form url.Values) map[string]any {
	out := map[string]any{}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		vals := form[key]
		name, path, ok := splitBrackets(key)
		if !ok {
			name, path = key, nil
		}
		for _, v := range vals {
			setPath(out, name, path, v, len(vals) > 1 && len(path) == 0)
		}
	}
	for k, v := range out {
		out[k] = listify(v) // only nested objects become lists; the parameters themselves stay named
	}
	return out
}

// splitBrackets splits "a[b][]" into "a" and ["b", ""].
func splitBrackets(key string) (string, []string, bool) {
	open := strings.IndexByte(key, '[')
	if open <= 0 || !strings.HasSuffix(key, "]") {
		return key, nil, open < 0
	}
	name, rest := key[:open], key[open:]
	var path []string
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 || len(path) >= 5 {
			return "", nil, false
		}
		path = append(path, rest[1:end])
		rest = rest[end+1:]
	}
	return name, path, true
}

// setPath stores v under name and the bracket path; an empty path segment appends to a list.
func setPath(m map[string]any, name string, path []string, v string, repeated bool) {
	if len(path) == 0 {
		if repeated {
			list, _ := m[name].([]any)
			m[name] = append(list, v)
		} else {
			m[name] = v
		}
		return
	}
	if path[0] == "" {
		list, _ := m[name].([]any)
		if len(path) == 1 {
			m[name] = append(list, v)
			return
		}
		child := map[string]any{}
		setPath(child, "x", path[1:], v, false)
		m[name] = append(list, child["x"])
		return
	}
	child, _ := m[name].(map[string]any)
	if child == nil {
		child = map[string]any{}
		m[name] = child
	}
	setPath(child, path[0], path[1:], v, false)
}

// listify turns objects whose keys are all small non-negative integers (a[0][b]=…) into lists, in index order.
func listify(v any) any {
	switch t := v.(type) {
	case map[string]any:
		numeric := len(t) > 0
		for k, child := range t {
			t[k] = listify(child)
			if n, err := strconv.Atoi(k); err != nil || n < 0 || n > 1000 || strconv.Itoa(n) != k {
				numeric = false
			}
		}
		if !numeric {
			return t
		}
		keys := make([]int, 0, len(t))
		for k := range t {
			n, _ := strconv.Atoi(k)
			keys = append(keys, n)
		}
		sort.Ints(keys)
		list := make([]any, len(keys))
		for i, k := range keys {
			list[i] = t[strconv.Itoa(k)]
		}
		return list
	case []any:
		for i := range t {
			t[i] = listify(t[i])
		}
	}
	return v
}

// Lookup returns the raw value of a parameter and whether it was given at all (a JSON null is given, as nil).
func (p *Params) Lookup(name string) (any, bool) {
	v, ok := p.values[name]
	return v, ok
}

// Has tells whether a parameter was given with a value other than JSON null.
func (p *Params) Has(name string) bool {
	v, ok := p.values[name]
	return ok && v != nil
}
