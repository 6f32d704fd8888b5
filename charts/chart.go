package charts

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// ErrNoData is the error of a chart with nothing to draw.
var ErrNoData = errors.New("charts: no data to draw")

// A Chart is a drawn figure: a file name (without extension), a title, the
// caption that states its units, percentile method and window, and the
// plot.
type Chart struct {
	Name    string
	Title   string
	Caption string
	Plot    *plot.Plot
}

// Width and Height are the size charts are written at.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// Render writes the chart in format "svg" or "png" at Width × Height. An
// SVG carries its font (as an inline data URL), so that a browser without
// it lays the text out as it was measured, never clipped.
func (c Chart) Render(format string) ([]byte, error) {
	var w io.WriterTo
	switch format {
	case "svg":
		canvas := vgsvg.NewWith(vgsvg.UseWH(Width, Height), vgsvg.EmbedFonts(true))
		c.Plot.Draw(draw.New(canvas))
		w = canvas
	case "png":
		var err error
		if w, err = c.Plot.WriterTo(Width, Height, format); err != nil {
			return nil, fmt.Errorf("charts: %s: %w", c.Name, err)
		}
	default:
		return nil, fmt.Errorf("charts: format %q: want svg or png", format)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("charts: %s: %w", c.Name, err)
	}
	return b.Bytes(), nil
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

// newPlot returns a plot with the title, the caption under it and the
// axis labels.
func newPlot(title, caption, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	if caption != "" {
		p.Title.Text += "\n" + wrap(caption, 100)
	}
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Padding = vg.Points(2)
	return p
}

// logAxis makes the plot's x axis logarithmic, with ticks at 1, 2 and 5
// times the powers of ten.
func logAxis(p *plot.Plot) {
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ticks125{}
}

// ticks125 marks a log axis at 1, 2 and 5 times the powers of ten,
// labelled, and at the other whole multiples, unlabelled.
type ticks125 struct{}

func (ticks125) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
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
