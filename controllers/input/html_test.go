package input

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

func TestSanitizeHTML(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain text", "Created for captures", "Created for captures"},
		{"paragraph", "<p>Event 01 description</p>", "<p>Event 01 description</p>"},
		{"formatting kept", "<p><strong>a</strong> <em>b</em> <b>c</b> <i>d</i> <u>e</u><br></p>",
			"<p><strong>a</strong> <em>b</em> <b>c</b> <i>d</i> <u>e</u><br></p>"},
		{"lists", "<ul><li>a</li></ul><ol><li>b</li></ol>", "<ul><li>a</li></ul><ol><li>b</li></ol>"},
		{"headings", "<h1>a</h1><h6>b</h6>", "<h1>a</h1><h6>b</h6>"},
		{"blockquote code pre", "<blockquote>q</blockquote><pre><code>x := 1</code></pre>",
			"<blockquote>q</blockquote><pre><code>x := 1</code></pre>"},
		{"table", "<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>d</td></tr></tbody></table>",
			"<table><thead><tr><th>h</th></tr></thead><tbody><tr><td>d</td></tr></tbody></table>"},
		{"span div class", `<div class="wp-block"><span>x</span></div>`, `<div class="wp-block"><span>x</span></div>`},
		{"link kept without nofollow", `<a href="https://example.com/x" title="X">x</a>`,
			`<a href="https://example.com/x" title="X">x</a>`},
		{"link target and rel", `<a href="https://example.com/" target="_blank" rel="noopener noreferrer">x</a>`,
			`<a href="https://example.com/" target="_blank" rel="noopener noreferrer">x</a>`},
		{"rel opener dropped", `<a href="/x" rel="opener">x</a>`, `<a href="/x">x</a>`},
		{"bad target dropped", `<a href="/x" target="javascript:alert(1)">x</a>`, `<a href="/x">x</a>`},
		{"mailto", `<a href="mailto:a@example.com">mail</a>`, `<a href="mailto:a@example.com">mail</a>`},
		{"relative link", `<a href="/event/x/">x</a>`, `<a href="/event/x/">x</a>`},
		{"image", `<img src="https://example.com/a.png" alt="A" width="10" height="20">`,
			`<img src="https://example.com/a.png" alt="A" width="10" height="20">`},

		{"script removed with content", `<p>a</p><script>alert(1)</script><p>b</p>`, `<p>a</p><p>b</p>`},
		{"script upper case", `<SCRIPT SRC=//evil.example/x.js></SCRIPT>x`, `x`},
		{"style removed", `<style>p{color:red}</style><p style="color:red">x</p>`, `<p>x</p>`},
		{"iframe removed", `<iframe src="https://evil.example/"></iframe>x`, `x`},
		{"object embed removed", `<object data="x.swf"></object><embed src="x.swf">x`, `x`},
		{"onclick removed", `<p onclick="alert(1)">x</p>`, `<p>x</p>`},
		{"onerror removed", `<img src="x.png" onerror="alert(1)">`, `<img src="x.png">`},
		{"handler only element dropped", `<a onmouseover="alert(1)">x</a>`, `x`},
		{"javascript href", `<a href="javascript:alert(1)">x</a>`, `x`},
		{"javascript href upper case", `<a href="JaVaScRiPt:alert(1)">x</a>`, `x`},
		{"javascript href with entity tab", `<a href="java&#x09;script:alert(1)">x</a>`, `x`},
		{"javascript href leading space", `<a href=" javascript:alert(1)">x</a>`, `x`},
		{"vbscript href", `<a href="vbscript:msgbox(1)">x</a>`, `x`},
		{"data href", `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`, `x`},
		{"data image dropped", `<img src="data:image/png;base64,iVBORw0KGgo=">`, ``},
		{"javascript img src", `<img src="javascript:alert(1)" alt="a">`, `<img alt="a">`},
		{"svg removed", `<svg onload="alert(1)"><circle r="1"/></svg>x`, `x`},
		{"form removed", `<form action="/x"><input name="a"><button>b</button></form>`, `b`},
		{"meta refresh removed", `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">x`, `x`},
		{"comment removed", `a<!-- <script>alert(1)</script> -->b`, `ab`},
		{"nested script trick", `<scr<script>ipt>alert(1)</scr</script>ipt>`, `ipt&gt;alert(1)ipt&gt;`},
		{"unclosed script", `<script>alert(1)`, ``},

		{"entities kept", `Rock &amp; Roll &copy; 2027`, `Rock &amp; Roll © 2027`},
		{"bare ampersand escaped", `Rock & Roll`, `Rock &amp; Roll`},
		{"heart stays text", `Jazz & Blues <3`, `Jazz &amp; Blues &lt;3`},
		{"escaped tag stays text", `&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;script&gt;alert(1)&lt;/script&gt;`},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"NUL dropped", "a\x00b", "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeHTML(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeHTML(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := SanitizeHTML(got); again != got {
				t.Errorf("not idempotent: %q → %q", got, again)
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain title", "Capture Festival", "Capture Festival"},
		{"entity decoded once", "Rock &amp; Roll", "Rock & Roll"},
		{"bare ampersand", "Rock & Roll", "Rock & Roll"},
		{"heart survives", "Jazz & Blues <3", "Jazz & Blues <3"},
		{"comparison survives", "a < b > c", "a < b > c"},
		{"tags stripped", "<b>Bold</b> <i>title</i>", "Bold title"},
		{"script content dropped", "<script>alert(1)</script>Title", "Title"},
		{"style content dropped", "<style>b{}</style>Title", "Title"},
		{"escaped markup is stripped too", "&lt;b&gt;x&lt;/b&gt;", "x"},
		{"escaped script is stripped", "&lt;script&gt;alert(1)&lt;/script&gt;Title", "Title"},
		{"textarea content cannot smuggle tags", "<textarea><script>x</script></textarea>y", "y"},
		{"rebuilt tag", "&lt;<b>b>x", "x"},
		{"escaped lt then digit stays", "I &lt;3 jazz", "I <3 jazz"},
		{"double escaped", "AT&amp;amp;T", "AT&T"},
		{"double escaped markup", "&amp;lt;b&amp;gt;x", "x"},
		{"escaped comment stripped", "a&lt;!-- c --&gt;b", "ab"},
		{"numeric entities", "Caf&#233; &#8211; Bar", "Café – Bar"},
		{"letter after lt is a tag", "a<b", "a"},
		{"trimmed", "  Title  ", "Title"},
		{"quotes kept", `"Quoted" 'title'`, `"Quoted" 'title'`},
		{"invalid UTF-8", "Caf\xe9", "Caf\uFFFD"},
		{"NUL dropped", "a\x00b", "ab"},
		{"NUL entity", "a&#0;b", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlainText(tt.in); got != tt.want {
				t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPlainTextDeepEscaping covers input escaped more often than PlainText
// decodes: the result is still free of markup and stable.
func TestPlainTextDeepEscaping(t *testing.T) {
	in := "a&" + strings.Repeat("amp;", 20) + "lt;b&gt;x"
	got := PlainText(in)
	if strings.ContainsAny(got, "<&") {
		t.Errorf("PlainText(%q) = %q keeps < or &", in, got)
	}
	if again := PlainText(got); again != got {
		t.Errorf("not idempotent: %q → %q", got, again)
	}
}

// TestSanitizeHTMLConcurrent runs the shared policy from many goroutines; run
// with -race it shows the policy is safe to share.
func TestSanitizeHTMLConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if got := SanitizeHTML(`<p onclick="x">a</p><script>b</script>`); got != "<p>a</p>" {
					t.Errorf("got %q", got)
					return
				}
				if got := PlainText("<b>a &amp; b</b>"); got != "a & b" {
					t.Errorf("got %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// urlAttrs are the attributes a browser follows or loads as a URL.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "cite": true, "action": true, "formaction": true,
	"background": true, "poster": true, "srcset": true, "data": true, "xlink:href": true,
	"longdesc": true, "usemap": true, "ping": true, "lowsrc": true, "dynsrc": true,
}

// checkSafeHTML fails when sanitised output could run script: a script tag,
// an on* attribute, a style attribute, or a URL attribute with a scripting
// or data scheme (after removing the whitespace and control characters that
// browsers ignore in schemes).
func checkSafeHTML(t *testing.T, in, out string) {
	t.Helper()
	if strings.Contains(strings.ToLower(out), "<script") {
		t.Fatalf("SanitizeHTML(%q) = %q contains <script", in, out)
	}
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		switch tok.Data {
		case "script", "style", "iframe", "object", "embed", "svg", "math", "form", "meta", "link", "base":
			t.Fatalf("SanitizeHTML(%q) = %q keeps <%s>", in, out, tok.Data)
		}
		for _, a := range tok.Attr {
			key := strings.ToLower(a.Key)
			if strings.HasPrefix(key, "on") || key == "style" {
				t.Fatalf("SanitizeHTML(%q) = %q keeps attribute %s", in, out, a.Key)
			}
			if !urlAttrs[key] {
				continue
			}
			v := strings.Map(func(r rune) rune {
				if r <= ' ' || r == 0x7f {
					return -1
				}
				return r
			}, strings.ToLower(a.Val))
			for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
				if strings.HasPrefix(v, scheme) {
					t.Fatalf("SanitizeHTML(%q) = %q keeps %s=%q", in, out, a.Key, a.Val)
				}
			}
		}
	}
}

// FuzzSanitizeHTML checks that SanitizeHTML never panics, always returns
// valid UTF-8 without NUL, never lets script through (no <script, no on*
// handlers, no javascript:/vbscript:/data: URLs), and is idempotent. It also
// checks PlainText on the same input: no panic, valid UTF-8, nothing a
// tokenizer reads as markup, idempotent.
func FuzzSanitizeHTML(f *testing.F) {
	for _, s := range []string{
		"", "plain", "<p>x</p>", `<a href="https://example.com" target="_blank" rel="noopener">x</a>`,
		`<script>alert(1)</script>`, `<scr<script>ipt>alert(1)</script>`, `<p onclick="x">y</p>`,
		`<a href="javascript:alert(1)">x</a>`, `<a href="java&#x09;script:x">x</a>`, `<img src=x onerror=alert(1)>`,
		`<svg><script>alert(1)</script></svg>`, `<math><mi xlink:href="javascript:x">y</mi></math>`,
		`<plaintext><script>x</script>`, `<textarea><script>x</script></textarea>`, `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
		`<!--<script>x</script>-->`, `<a href="  JAVASCRIPT:x">x</a>`, "a\xffb\x00c", `Jazz & Blues <3`,
		`<table><tr><td>x</td></tr></table>`, `<a href="http://x/%zz">x</a>`, `<img src="https://example.com/ä.png">`,
		`<a href="/x?a=1&b=2">x</a>`, `<<script>script>alert(1)<</script>/script>`, `<a href=# rel=" nofollow ">x</a>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := SanitizeHTML(in)
		if !utf8.ValidString(out) {
			t.Fatalf("SanitizeHTML(%q) = %q is not valid UTF-8", in, out)
		}
		if strings.IndexByte(out, 0) >= 0 {
			t.Fatalf("SanitizeHTML(%q) = %q contains NUL", in, out)
		}
		checkSafeHTML(t, in, out)
		if again := SanitizeHTML(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}

		plain := PlainText(in)
		if text := strings.TrimSpace(cleanText(in)); !hasMarkup(text) && plainTextPass(text) != text {
			t.Fatalf("PlainText(%q) skips the pass that gives %q", in, plainTextPass(text))
		}
		if !utf8.ValidString(plain) || strings.IndexByte(plain, 0) >= 0 {
			t.Fatalf("PlainText(%q) = %q is not clean UTF-8", in, plain)
		}
		z := html.NewTokenizer(strings.NewReader(plain))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.TextToken {
				t.Fatalf("PlainText(%q) = %q still has markup (%v)", in, plain, tt)
			}
		}
		if again := PlainText(plain); again != plain {
			t.Fatalf("PlainText not idempotent: %q → %q → %q", in, plain, again)
		}
	})
}
