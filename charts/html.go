package charts

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
)

// A Page is a self-contained HTML report: sections of paragraphs, tables,
// preformatted text and charts drawn inline as SVG. It loads nothing from
// the network, runs no script and carries no font: the charts name a
// standard font family.
type Page struct {
	Title    string
	Sections []Section
}

// A Section is a heading, its paragraphs, its tables, its preformatted
// text and its charts, in that order.
type Section struct {
	Heading    string
	Paragraphs []string
	Tables     []Table
	Text       string
	Charts     []Chart
}

// A Table is a caption, a header row (with the units) and rows of cells.
// A cell may carry a note, printed small beside it: the request that holds
// a percentile's value.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]Cell
}

// A Cell is a table cell: its text and an optional note beside it.
type Cell struct {
	Text, Note string
}

type figure struct {
	ID, Title, Caption string
	SVG                template.HTML
}

type section struct {
	Section
	Figures []figure
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: 'Liberation Sans', Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 62em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.4em; overflow-wrap: anywhere; } h2 { font-size: 1.15em; border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
p { margin: .5em 0; }
table { border-collapse: collapse; margin: .8em 0; font-size: .9em; }
caption { text-align: left; font-weight: bold; padding-bottom: .3em; }
th, td { padding: .25em .6em; border-bottom: 1px solid #e4e4e4; }
th { text-align: right; background: #f4f4f4; } th:first-child, td:first-child { text-align: left; }
td { text-align: right; font-variant-numeric: tabular-nums; }
td small { display: block; color: #777; font-size: .8em; }
.wrap { overflow-x: auto; }
pre { background: #f6f6f6; padding: 1em; font-size: .85em; line-height: 1.35; overflow-x: auto; }
figure { margin: 1.5em 0; } figure svg { width: 100%; height: auto; max-width: 48em; display: block; }
figcaption { font-size: .9em; color: #444; margin-top: .3em; max-width: 48em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Sections}}<section>
<h2>{{.Heading}}</h2>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{range .Tables}}<div class="wrap"><table>
{{if .Caption}}<caption>{{.Caption}}</caption>
{{end}}<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.Text}}{{if .Note}}<small>{{.Note}}</small>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}{{if .Text}}<pre>{{.Text}}</pre>
{{end}}{{range .Figures}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption><strong>{{.Title}}.</strong> {{.Caption}}</figcaption>
</figure>
{{end}}</section>
{{end}}</body>
</html>
`))

// WriteHTML writes the page, each chart rendered as inline SVG. A section
// with nothing in it is left out.
func WriteHTML(w io.Writer, p Page) error {
	data := struct {
		Title    string
		Sections []section
	}{Title: p.Title}
	for _, s := range p.Sections {
		if len(s.Paragraphs) == 0 && len(s.Tables) == 0 && s.Text == "" && len(s.Charts) == 0 {
			continue
		}
		sec := section{Section: s}
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
			sec.Figures = append(sec.Figures, figure{ID: c.Name, Title: c.Title, Caption: c.Caption,
				SVG: template.HTML(svg)}) // our own renderer's output, the caption escaped
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
