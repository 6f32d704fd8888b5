package charts

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

// A Page is a self-contained HTML report: sections of preformatted text
// (the tables as the command prints them) and charts drawn inline as SVG.
// It loads nothing from the network and runs no script.
type Page struct {
	Title    string
	Sections []Section
}

// A Section is a heading, its text and its charts.
type Section struct {
	Heading string
	Text    string
	Charts  []Chart
}

type figure struct {
	ID, Title, Caption string
	SVG                template.HTML
}

type section struct {
	Heading, Text string
	Figures       []figure
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: .85em; line-height: 1.35; }
figure { margin: 1.5em 0; } figure svg { width: 100%; height: auto; max-width: 60em; display: block; }
figcaption { font-size: .9em; color: #444; margin-top: .3em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Sections}}<section>
<h2>{{.Heading}}</h2>
{{if .Text}}<pre>{{.Text}}</pre>{{end}}
{{range .Figures}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption><strong>{{.Title}}.</strong> {{.Caption}}</figcaption>
</figure>
{{end}}</section>
{{end}}</body>
</html>
`))

// WriteHTML writes the page, each chart rendered as inline SVG.
func WriteHTML(w io.Writer, p Page) error {
	data := struct {
		Title    string
		Sections []section
	}{Title: p.Title}
	fonts := map[string]bool{} // the font blocks already in the page
	for _, s := range p.Sections {
		sec := section{Heading: s.Heading, Text: s.Text}
		for _, c := range s.Charts {
			svg, err := c.Render("svg")
			if err != nil {
				return err
			}
			// The XML declaration belongs to a file, not to an element
			// inside HTML.
			if i := bytes.Index(svg, []byte("<svg")); i > 0 {
				svg = svg[i:]
			}
			svg = dropRepeatedFonts(svg, fonts)
			sec.Figures = append(sec.Figures, figure{ID: c.Name, Title: c.Title, Caption: c.Caption,
				SVG: template.HTML(svg)}) // our own renderer's output, not user text
		}
		data.Sections = append(data.Sections, sec)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		return fmt.Errorf("charts: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// dropRepeatedFonts removes an SVG's embedded font block when an earlier
// chart of the page carried the same one: a style in an inline SVG applies
// to the whole page, so each font is needed once.
func dropRepeatedFonts(svg []byte, seen map[string]bool) []byte {
	i := bytes.Index(svg, []byte("<defs>"))
	j := bytes.Index(svg, []byte("</defs>"))
	if i < 0 || j < i {
		return svg
	}
	j += len("</defs>")
	block := string(svg[i:j])
	if !seen[block] {
		seen[block] = true
		return svg
	}
	return append(svg[:i:i], svg[j:]...)
}
