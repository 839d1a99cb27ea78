package input

import (
	"html"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	nethtml "golang.org/x/net/html"
)

// htmlPolicy is the allow-list for description and excerpt HTML.
// bluemonday documents a policy as safe for use from many goroutines once it
// is built (building is not), so it is built once, at package init.
var htmlPolicy = newHTMLPolicy()

// plainTextPolicy drops every tag (and the content of script, style and the
// like) for fields that are plain text.
var plainTextPolicy = bluemonday.StrictPolicy()

// relTokens are the link relations an author may set. "opener" is left out on
// purpose: it would re-open the window.opener hole that target="_blank"
// otherwise closes in current browsers.
var relTokens = regexp.MustCompile(`^(?i:\s*(?:alternate|author|bookmark|external|help|license|me|next|nofollow|noopener|noreferrer|prev|search|sponsored|tag|ugc)\s*)+$`)

// newHTMLPolicy builds htmlPolicy.
func newHTMLPolicy() *bluemonday.Policy {
	// UGCPolicy is bluemonday's vetted base for untrusted rich text: ordinary
	// formatting, headings, lists, tables, blockquote/code/pre, images, and
	// links whose URLs must parse and be relative, http, https or mailto (so
	// javascript:, vbscript: and data: are dropped). It never allows script,
	// style, iframe, object, embed, forms, style attributes or on* handlers.
	p := bluemonday.UGCPolicy()

	// Descriptions are written by the site's own authors, not anonymous
	// commenters, and are returned as stored: rewriting every link with
	// rel="nofollow" would change what the author wrote.
	p.RequireNoFollowOnLinks(false)

	// Links may open in a named browsing context and carry ordinary relations
	// (links keep href, title, target and rel).
	p.AllowAttrs("target").Matching(regexp.MustCompile(`^(?i:_blank|_self|_parent|_top)$`)).OnElements("a")
	p.AllowAttrs("rel").Matching(relTokens).OnElements("a")

	// Class names are common in content pasted from WordPress editors and
	// carry no script.
	p.AllowStyling()

	return p
}

// SanitizeHTML cleans description and excerpt HTML on write against an
// allow-list: script, style, iframe and object elements, on*
// event-handler attributes, style attributes and javascript:, vbscript: and
// data: URLs are removed; ordinary formatting (p, br, strong, em, b, i, u,
// a[href,title,target,rel], lists, h1-h6, blockquote, code, pre,
// img[src,alt,width,height], span, div, tables, …) is kept. Text is
// re-escaped, so a stray "<" or "&" comes back as "&lt;" or "&amp;". Invalid
// UTF-8 becomes U+FFFD and NUL bytes are dropped, so the result is always
// valid UTF-8 that a database text column accepts. The result is stable:
// sanitising it again changes nothing.
func SanitizeHTML(s string) string {
	if s == "" {
		return ""
	}
	out := htmlPolicy.Sanitize(cleanText(s))
	// bluemonday does not promise idempotence. Sanitising until nothing
	// changes makes it so, because clients that read a description and write
	// it back must not see it drift; in practice the first pass is already
	// stable and the loop ends after one check.
	for i := 0; i < 4; i++ {
		again := htmlPolicy.Sanitize(out)
		if again == out {
			break
		}
		out = again
	}
	return out
}

// PlainText strips all tags for fields that are plain text (titles and names:
// the allow-list) and unescapes entities, so "Rock &amp; Roll" reads "Rock & Roll".
// Script and style content is dropped, not kept as text.
//
// Text that only looks like markup survives: a "<" that cannot start a tag
// ("Jazz & Blues <3", "a < b") stays as written, because the HTML tokenizer
// reads it as text. A "<" directly followed by a letter, "/", "!" or "?"
// starts a tag and is removed with it ("a<b" → "a"): such a title cannot be
// told apart from markup.
//
// Entities are decoded, and tags removed, until nothing changes, rather than
// exactly once: escaped markup ("&lt;b&gt;x&lt;/b&gt;") must not come back as
// live tags for clients that insert titles into a page unescaped (common with
// WordPress titles), and a client that reads a title and writes it back must
// not see it change again (PlainText(PlainText(x)) == PlainText(x)). The cost
// is that a literal entity cannot be kept: "&amp;amp;" ends as "&". The
// result is trimmed, valid UTF-8 without NUL bytes, and contains nothing an
// HTML tokenizer reads as markup.
func PlainText(s string) string {
	t := strings.TrimSpace(cleanText(s))
	if !hasMarkup(t) {
		return t // what the passes below would return, without parsing (filters name terms by plain slugs)
	}
	for pass := 0; pass < maxPlainTextPasses; pass++ {
		next := plainTextPass(t)
		if next == t {
			return t
		}
		t = next
	}
	// Only input built to nest escapes deeper than maxPlainTextPasses gets
	// here. Without "<" and "&" nothing can be a tag or an entity, so the
	// result is final.
	return strings.TrimSpace(strings.NewReplacer("<", "", "&", "").Replace(t))
}

// hasMarkup tells whether s holds anything a plainTextPass changes: a tag or an entity, or a carriage return (the
// tokenizer turns line endings into "\n").
func hasMarkup(s string) bool { return strings.ContainsAny(s, "<&\r") }

// maxPlainTextPasses bounds PlainText's loop. Real text settles in one pass
// (plus the one that confirms it); each further level of escaping
// ("&amp;lt;") costs one more.
const maxPlainTextPasses = 8

// plainTextPass drops tags and decodes one level of entities. Its result is
// the text content of s; when that equals s, s has no markup left.
func plainTextPass(s string) string {
	// The policy re-escapes the text it keeps, so unescaping afterwards
	// yields the text content exactly.
	return strings.TrimSpace(cleanText(html.UnescapeString(plainTextPolicy.Sanitize(s))))
}

// cleanText replaces invalid UTF-8 with U+FFFD and drops NUL bytes: the HTML
// tokenizer passes both through, and databases reject NUL in text.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// blockElements end a line of text where they open or close, as a browser lays them out; paragraphs, headings
// and quotations also leave a blank line.
var blockElements = map[string]int{"p": 2, "h1": 2, "h2": 2, "h3": 2, "h4": 2, "h5": 2, "h6": 2,
	"blockquote": 2, "div": 1, "li": 1, "ul": 1, "ol": 1, "pre": 1, "table": 1, "tr": 1, "hr": 1, "dl": 1,
	"dt": 1, "dd": 1, "figure": 1, "figcaption": 1, "br": 1}

// TextFromHTML is the text of stored HTML (a sanitised description) with its line structure: paragraphs and
// headings as blocks separated by a blank line, list items, rows and <br> on lines of their own (items marked
// "- "), other whitespace collapsed as a browser collapses it. iCalendar DESCRIPTION is plain text, and PlainText,
// made for one-line names, would run the paragraphs together. The HTML tokenizer parses and decodes entities;
// only this layout rule is written here, because the maintained HTML-to-text modules also rewrite links and
// emphasis into markdown-like marks, which a calendar would show literally.
func TextFromHTML(s string) string {
	z := nethtml.NewTokenizer(strings.NewReader(cleanText(s)))
	var b strings.Builder
	space := false // whitespace seen since the last character written
	endLine := func(blank int) {
		space = false
		text := b.String()
		if text == "" {
			return
		}
		for have := len(text) - len(strings.TrimRight(text, "\n")); have < blank; have++ {
			b.WriteByte('\n')
		}
	}
	for {
		switch token := z.Next(); token {
		case nethtml.ErrorToken:
			return strings.TrimSpace(b.String())
		case nethtml.TextToken:
			for _, r := range string(z.Text()) {
				if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
					space = true
					continue
				}
				if space && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
					b.WriteByte(' ')
				}
				space = false
				b.WriteRune(r)
			}
		case nethtml.StartTagToken, nethtml.EndTagToken, nethtml.SelfClosingTagToken:
			name, _ := z.TagName()
			if lines, ok := blockElements[string(name)]; ok {
				endLine(lines)
			}
			if string(name) == "li" && token == nethtml.StartTagToken {
				b.WriteString("- ")
			}
		}
	}
}
