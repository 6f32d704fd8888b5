package charts

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ErrNoData is the error of a chart with nothing to draw.
var ErrNoData = errors.New("charts: no data to draw")

// ErrCannotDraw is the error of a chart whose data cannot be drawn on its
// axes: a log axis over values of zero or less, or values that are not
// finite. The error names the reason, for the page's notes.
var ErrCannotDraw = errors.New("charts: cannot draw")

// A Chart is a drawn figure: a file name (without extension), a short
// title, the caption that states its units, conventions and window (in the
// page and the SVG's description, not in the picture), and the plot.
type Chart struct {
	Name    string
	Title   string
	Caption string
	Plot    *plot.Plot
}

// Width and Height are the size of a chart's plot; its legend, when it has
// one, is drawn under the plot and adds to the height.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// DPI is the resolution of the PNG files.
const DPI = 150

// fontFamily is the font list an SVG names: the charts are measured with
// Liberation Sans, whose widths Arial and Helvetica share, so the text
// keeps its room in a browser that has any of them.
const fontFamily = `font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`

// Render writes the chart in format "svg" or "png". An SVG names a
// standard font family rather than carrying a font, and holds the caption
// as its description.
func (c Chart) Render(format string) ([]byte, error) {
	if c.Plot == nil {
		return nil, fmt.Errorf("%w: %s has no plot", ErrNoData, c.Name)
	}
	legend := c.Plot.Legend
	p := *c.Plot // the plot drawn without its legend, which goes under it
	p.Legend = plot.NewLegend()
	legend.Top, legend.Left, legend.XOffs, legend.YOffs = true, true, 0, 0
	size := vg.Rectangle{Max: vg.Point{X: Width, Y: Height}}
	lh := legend.Rectangle(draw.Canvas{Rectangle: size}).Size().Y
	if lh > 0 {
		lh += legendMargin
	}
	h := Height + lh
	var b bytes.Buffer
	switch format {
	case "svg":
		canvas := vgsvg.New(Width, h)
		drawWithLegend(draw.New(canvas), &p, &legend, lh)
		if _, err := canvas.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("charts: %s: %w", c.Name, err)
		}
		return svgTidy(b.Bytes(), c.Caption), nil
	case "png":
		canvas := vgimg.NewWith(vgimg.UseWH(Width, h), vgimg.UseDPI(DPI))
		drawWithLegend(draw.New(canvas), &p, &legend, lh)
		if _, err := (vgimg.PngCanvas{Canvas: canvas}).WriteTo(&b); err != nil {
			return nil, fmt.Errorf("charts: %s: %w", c.Name, err)
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("charts: format %q: want svg or png", format)
}

// legendMargin is the room between the plot and its legend; margin the
// room around the plot.
const (
	legendMargin = 4 * vg.Millimeter
	margin       = 2 * vg.Millimeter
)

// drawWithLegend draws the plot in the top of the canvas and the legend in
// a strip of height lh under it, so that the legend never covers data and
// is never cut by the plot's edge.
func drawWithLegend(c draw.Canvas, p *plot.Plot, legend *plot.Legend, lh vg.Length) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	p.Draw(draw.Crop(c, margin, -2*margin, lh, -margin))
	if lh > 0 {
		strip := c
		strip.Max.Y = c.Min.Y + lh - legendMargin/2
		strip.Min.X += legendMargin
		legend.Draw(strip)
	}
}

// svgTidy names the standard font family in place of the one measured,
// holds each text to the width it was measured at, and writes the
// caption as the SVG's description.
func svgTidy(svg []byte, caption string) []byte {
	svg = bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"), []byte(fontFamily))
	svg = fitTexts(svg)
	if caption == "" {
		return svg
	}
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return svg
	}
	j := bytes.IndexByte(svg[i:], '>')
	if j < 0 {
		return svg
	}
	j += i + 1
	desc := "\n<desc>" + html.EscapeString(caption) + "</desc>"
	return append(svg[:j:j], append([]byte(desc), svg[j:]...)...)
}

// svgText matches a text element as vgsvg writes it: its attributes, its
// font size and its content.
var svgText = regexp.MustCompile(`(<text [^>]*font-size:([0-9.]+)px")>([^<]*)</text>`)

// fitTexts gives each text the width it was laid out with (textLength),
// so that a browser without Liberation Sans or a font of its widths
// (DejaVu Sans is wider) squeezes it into its room rather than pushing it
// over its neighbours or out of the picture.
func fitTexts(svg []byte) []byte {
	return svgText.ReplaceAllFunc(svg, func(m []byte) []byte {
		sub := svgText.FindSubmatch(m)
		size, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil || len(sub[3]) == 0 {
			return m
		}
		face := font.DefaultCache.Lookup(font.Font{Typeface: "Liberation", Variant: sans}, vg.Points(size))
		w := face.Width(html.UnescapeString(string(sub[3])))
		return fmt.Appendf(nil, `%s textLength="%.2f" lengthAdjust="spacingAndGlyphs">%s</text>`, sub[1], w.Points(), sub[3])
	})
}

// WriteFiles writes the chart as NAME.svg and NAME.png in dir, which it
// creates if need be, and returns the paths written.
func (c Chart) WriteFiles(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, format := range []string{"svg", "png"} {
		b, err := c.Render(format)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, c.Name+"."+format)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// newPlot returns a plot with a short title, the axis labels and tickers
// that label at least three ticks whatever the range. The caption is not
// drawn: it goes under the figure in the page.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.TextStyle.Font.Size = vg.Points(10)
	p.X.Tick.Label.Font.Size = vg.Points(9)
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.X.Tick.Marker = linearTicks{}
	p.Y.Tick.Marker = linearTicks{}
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	// Room between lines of text, for a browser's line boxes, which
	// are taller than the glyphs measured here.
	p.Legend.Padding = vg.Points(4)
	p.X.Label.Padding, p.Y.Label.Padding = vg.Points(4), vg.Points(4)
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant = sans
	}
	return p
}

// sans is the font variant of every text: Liberation Sans, whose widths
// Arial's match (see fontFamily).
const sans = "Sans"

// logAxis makes the plot's x axis logarithmic.
func logAxis(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
}

// finish checks that every axis of the plot can be drawn and widens a
// range of one value, so that gonum/plot is never asked to draw what it
// cannot: a log axis must cover values above 0, every range must be
// finite. It returns ErrCannotDraw with the reason otherwise.
func finish(p *plot.Plot) error {
	for _, a := range []struct {
		name string
		axis *plot.Axis
	}{{"x", &p.X}, {"y", &p.Y}} {
		ax := a.axis
		if math.IsNaN(ax.Min) || math.IsNaN(ax.Max) || math.IsInf(ax.Min, 0) || math.IsInf(ax.Max, 0) {
			return fmt.Errorf("%w: the %s axis has no finite range", ErrCannotDraw, a.name)
		}
		_, isLog := ax.Scale.(plot.LogScale)
		if isLog && !(ax.Min > 0) {
			return fmt.Errorf("%w: a log %s axis cannot show %g", ErrCannotDraw, a.name, ax.Min)
		}
		if ax.Min > ax.Max {
			ax.Min, ax.Max = ax.Max, ax.Min
		}
		if ax.Min == ax.Max { // one value: a range around it
			v := ax.Min
			switch {
			case isLog:
				ax.Min, ax.Max = v/1.25, v*1.25
			case v == 0:
				ax.Min, ax.Max = -1, 1
			default:
				ax.Min, ax.Max = v-math.Abs(v)/4, v+math.Abs(v)/4
			}
		}
	}
	return nil
}

// colour returns the i-th colour of the palette.
func colour(i int) color.Color { return plotutil.Color(i) }

// outcomeColours colour a timeline's bars.
var outcomeColours = map[string]color.Color{
	"ok":         color.RGBA{R: 0x33, G: 0x88, B: 0x33, A: 0xff},
	"failed":     color.RGBA{R: 0xcc, G: 0x22, B: 0x22, A: 0xff},
	"zero-token": color.RGBA{R: 0xdd, G: 0x99, B: 0x00, A: 0xff},
	"warm-up":    color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff},
	"rejected":   color.RGBA{R: 0x66, G: 0x00, B: 0x99, A: 0xff},
}

var _ io.WriterTo = (*vgsvg.Canvas)(nil)
