package endpoint

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"calendar/models"
)

// fuzzInput declares one parameter of every kind the binder decodes.
type fuzzInput struct {
	Paging
	ID      Opt[int64]    `param:"id" in:"path"`
	Title   Opt[string]   `param:"title" validate:"omitempty,max=200"`
	Flag    Opt[bool]     `param:"flag"`
	Lat     Opt[float64]  `param:"lat" validate:"omitempty,min=-90,max=90"`
	IDs     Opt[[]int64]  `param:"ids"`
	Refs    Opt[[]string] `param:"refs"`
	Raw     Opt[any]      `param:"raw"`
	Website Opt[string]   `param:"website" validate:"omitempty,url"`
}

// bindRequest binds a request to fuzzInput the way an endpoint does, through gin's router (for the path). It
// reports false when the router did not reach the endpoint (a path that matches no route).
func bindRequest(t *testing.T, req *http.Request) (*fuzzInput, error, bool) {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	var in fuzzInput
	var bindErr error
	reached := false
	r := gin.New()
	r.Any("/x/:id", func(c *gin.Context) { reached, bindErr = true, Bind(c, &in, []string{"title"}) })
	r.ServeHTTP(httptest.NewRecorder(), req)
	return &in, bindErr, reached
}

// checkBindError fails unless err is nil or one of the API's client errors.
func checkBindError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *models.Error
	if !errors.As(err, &e) {
		t.Fatalf("binder returned a non-API error: %v", err)
	}
	switch e.Kind {
	case models.KindInvalid, models.KindMissing, models.KindNotFound:
	default:
		t.Fatalf("binder returned kind %d: %v", e.Kind, err)
	}
	if e.Kind == models.KindInvalid && e.Code == "rest_invalid_param" && len(e.Params) == 0 {
		t.Fatalf("rest_invalid_param without parameters: %v", err)
	}
}

func FuzzBindJSON(f *testing.F) {
	for _, seed := range []string{
		`{"title":"x","flag":"yes","lat":"45.5","ids":[1,"2"],"refs":"a,b","raw":{"venue":"V"}}`,
		`{"title":null}`, `{}`, ``, `[]`, `{"page":"0","per_page":-1}`, `{"title":"\u0000"}`, `{"ids":[1.5]}`,
		`{"flag":[true]}`, `{"lat":1e999}`, `{"website":"javascript:alert(1)"}`, `{"title":"a"}{"b":1}`,
	} {
		f.Add(seed, "5")
	}
	f.Fuzz(func(t *testing.T, body, id string) {
		req := httptest.NewRequest(http.MethodPost, "/x/"+url.PathEscape(id), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		in, err, reached := bindRequest(t, req)
		if !reached {
			return
		}
		checkBindError(t, err)
		if err == nil {
			if !in.Title.Set || in.ID.V < 0 && !strings.HasPrefix(id, "-") {
				t.Fatalf("bound without the required title or with a wrong id: %+v", in)
			}
			if in.Lat.Set && (in.Lat.V < -90 || in.Lat.V > 90) {
				t.Fatalf("latitude %v passed validation", in.Lat.V)
			}
			for _, n := range in.IDs.V {
				if n <= 0 {
					t.Fatalf("non-positive ID %d in a list", n)
				}
			}
		}
	})
}

func FuzzBindForm(f *testing.F) {
	for _, seed := range []string{
		"title=x&flag=on&ids[]=1&ids[]=2&refs=a,b", "title=x&raw[venue]=V&raw[address]=A",
		"title=x&raw[0][organizer]=A&raw[1][id]=3", "title=x&ids=1,foo", "title=%ff%fe", "title=x&raw[a][b][c][d][e][f]=1",
		"title=x&page=99999999999999999999", "title&title=&title=2", "raw[]=1&raw[]=&title=t", "a[=1&title=t",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, form string) {
		req := httptest.NewRequest(http.MethodPost, "/x/1", strings.NewReader(form))
		req.URL.RawQuery = form
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		_, err, _ := bindRequest(t, req)
		checkBindError(t, err)
	})
}

func FuzzFormValues(f *testing.F) {
	for _, seed := range []string{"a=1&a=2", "a[]=1", "a[b]=1&a[c][]=2", "a[0][b]=1&a[1][b]=2", "a[]=1&a[x]=2", "[]=1", "a]b=1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		form, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		values := formValues(form)
		if _, err := json.Marshal(values); err != nil {
			t.Fatalf("parameters of %q do not encode: %v", query, err)
		}
	})
}

func FuzzDecodeBool(f *testing.F) {
	for _, seed := range []string{"true", "FALSE", " yes ", "on", "0", "2", "", "tru"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := DecodeBool(s)
		if err != nil {
			return
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes", "on":
			if !b {
				t.Fatalf("%q decoded false", s)
			}
		case "false", "0", "no", "off":
			if b {
				t.Fatalf("%q decoded true", s)
			}
		default:
			t.Fatalf("%q accepted as a boolean", s)
		}
	})
}

func FuzzDecodeLists(f *testing.F) {
	for _, seed := range []string{"1,2,3", " 4 , 5 ", "a,b", ",,", "1,,2", "-1", "9223372036854775808", strings.Repeat("1,", 600)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ids, err := DecodeIntList(s); err == nil {
			if len(ids) > MaxListItems {
				t.Fatalf("%d items accepted", len(ids))
			}
			for _, id := range ids {
				if id <= 0 {
					t.Fatalf("%q gave non-positive %d", s, id)
				}
			}
		}
		if refs, err := DecodeStringList(s); err == nil {
			for _, r := range refs {
				if r == "" || r != strings.TrimSpace(r) || strings.Contains(r, ",") {
					t.Fatalf("%q gave item %q", s, r)
				}
			}
		}
		if refs, err := DecodeStringList([]any{s, json.Number("7")}); err == nil && refs[len(refs)-1] != "7" {
			t.Fatalf("a number in a list of %q was not kept as its text: %q", s, refs)
		}
	})
}
