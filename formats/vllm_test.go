package formats

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A small vLLM file written by hand: three requests, the second failed, the
// third with one token. Its figures by hand:
//
//	ok requests 0 and 2; ttfts 0.1 and 0.3 s → mean 200 ms, std 100 ms,
//	median 200 ms, p99 (linear) 0.1 + 0.99·0.2 = 0.298 s → 298 ms;
//	itls of the ok requests 0.02, 0.04 → mean 30 ms; the pooled median
//	30 ms; TPOT only for request 0 (3 tokens): (0.02 + 0.04)/2 = 30 ms;
//	E2E 0.16 and 0.3 s → mean 230 ms; totals: input 10 + 30 = 40,
//	output 3 + 1 = 4; duration 2 s → 1 request/s, 2 output tokens/s.
const smallVLLM = `{"backend": "vllm", "duration": 2.0, "completed": 2,
 "input_lens": [10, 20, 30], "output_lens": [3, 0, 1],
 "ttfts": [0.1, 0.0, 0.3], "itls": [[0.02, 0.04], [], []],
 "errors": ["", "Bad Gateway", ""], "generated_texts": ["a b c", "", "\"x\""],
 "mean_ttft_ms": 200.0, "p99_ttft_ms": 298.0, "mean_tpot_ms": 30.0, "mean_itl_ms": 30.0}`

func TestVLLMSmall(t *testing.T) {
	f, err := ReadVLLM(strings.NewReader(smallVLLM))
	require.NoError(t, err)
	d, err := f.Dialect()
	require.NoError(t, err)
	want := map[string]float64{
		"completed": 2, "total_input_tokens": 40, "total_output_tokens": 4,
		"request_throughput": 1, "output_throughput": 2, "total_token_throughput": 22,
		"mean_ttft_ms": 200, "median_ttft_ms": 200, "std_ttft_ms": 100, "p99_ttft_ms": 298,
		"mean_itl_ms": 30, "median_itl_ms": 30, "mean_tpot_ms": 30,
	}
	for k, v := range want {
		got, ok := d.Lookup(k)
		require.True(t, ok, k)
		assert.InDelta(t, v, got, 1e-9*max(1, v), k)
	}
	_, ok := d.Lookup("mean_e2el_ms")
	assert.False(t, ok, "the file summarizes no e2el, so neither does its dialect")

	run, err := f.Records()
	require.NoError(t, err)
	require.Len(t, run.Records, 3)
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 120 * time.Millisecond, 160 * time.Millisecond}, run.Records[0].Chunks)
	assert.Equal(t, llmmetrics.StatusError, run.Records[1].Status)
	assert.Equal(t, "Bad Gateway", run.Records[1].Message)
	assert.Equal(t, 2*time.Second, f.Window)
	s, err := run.Summarize(llmmetrics.Options{Window: f.Window})
	require.NoError(t, err)
	assert.Equal(t, llmmetrics.Accounting{Offered: 3, OK: 2, Failed: 1, Errors: 1, OneToken: 1}, s.Requests)
}

// The vLLM 0.22 chat quirk: as many gaps as tokens, the first a few µs. The
// records move the first text one gap later; the notes say so.
func TestVLLMRoleChunkQuirk(t *testing.T) {
	in := `{"duration": 1, "input_lens": [5], "output_lens": [3], "ttfts": [0.01],
	"itls": [[0.000004, 0.02, 0.02]], "errors": [""], "start_times": [100.5]}`
	f, err := ReadVLLM(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, "vllm bench serve", f.Layout)
	assert.Contains(t, strings.Join(f.Notes, " "), "role-only first chunk")
	run, err := f.Records()
	require.NoError(t, err)
	// 0.01 + 0.000004 = 0.010004 s; then +0.02 twice.
	assert.Equal(t, []time.Duration{10_004_000, 30_004_000, 50_004_000}, run.Records[0].Chunks)
	b, err := run.Records[0].GapBasis()
	require.NoError(t, err)
	assert.Equal(t, llmmetrics.BasisToken, b)
	assert.Equal(t, time.Duration(0), f.Window, "send times exist: the window is derived")
}

// Bad and truncated files give an error naming the format and the field,
// never a partial import.
func TestVLLMBadFiles(t *testing.T) {
	for _, c := range []struct {
		in    string
		err   error
		field string
	}{
		{`[1, 2]`, ErrFormat, ""},
		{`{"backend": "vllm"}`, ErrFormat, ""},
		{`{"ttfts": [0.1], "itls": [[]], "input_lens": [1], "output_lens": [1], "errors": [""]}`, llmmetrics.ErrMissingField, "duration"},
		{`{"duration": 0, "ttfts": []}`, llmmetrics.ErrInvalidWindow, "duration"},
		{`{"duration": 1, "ttfts": [0.1, 0.2], "itls": [[]], "input_lens": [1, 1], "output_lens": [1, 1], "errors": ["", ""]}`, ErrLength, "itls"},
		{`{"duration": 1, "ttfts": [0.1], "input_lens": [1], "output_lens": [1], "errors": [""]}`, llmmetrics.ErrMissingField, "itls"},
		{`{"duration": 1, "ttfts": [NaN], "itls": [[]], "input_lens": [1], "output_lens": [1], "errors": [""]}`, llmmetrics.ErrNonFinite, "ttfts[0]"},
		{`{"duration": 1, "ttfts": [0.1], "itls": [[]], "input_lens": [1.5], "output_lens": [1], "errors": [""]}`, llmmetrics.ErrSyntax, "input_lens[0]"},
		{`{"duration": 1, "ttfts": [0.1], "itls": [[0.1, 0.2`, llmmetrics.ErrSyntax, "itls"},
		{`{"duration": 1, "ttfts": [0.1,], "itls": [[]]}`, llmmetrics.ErrSyntax, "ttfts"},
		{`{"duration": 1, "duration": 2}`, llmmetrics.ErrSyntax, "duration"},
		{`{"duration": 1, "ttfts": [0.1]} trailing`, llmmetrics.ErrSyntax, ""},
		{`{"duration": 1, "errors": ["unterminated]}`, llmmetrics.ErrSyntax, "errors"},
	} {
		_, err := ReadVLLM(strings.NewReader(c.in))
		require.Error(t, err, c.in)
		assert.ErrorIs(t, err, c.err, c.in)
		var fe *FieldError
		require.True(t, errors.As(err, &fe), c.in)
		assert.Equal(t, c.field, fe.Field, c.in)
		assert.Contains(t, err.Error(), "vllm file", c.in)
	}
}

// A summary-only file (saved without --save-detailed) reads, says so, and
// refuses to give records or a dialect.
func TestVLLMSummaryOnly(t *testing.T) {
	f, err := ReadVLLM(strings.NewReader(`{"duration": 10, "completed": 5, "request_throughput": 0.5, "mean_ttft_ms": 12.5}`))
	require.NoError(t, err)
	assert.Len(t, f.Summary, 4)
	_, err = f.Records()
	assert.ErrorIs(t, err, ErrNoRecords)
	_, err = f.Dialect()
	assert.ErrorIs(t, err, ErrNoRecords)
}

func TestDetect(t *testing.T) {
	tool, ok := Detect([]byte(smallVLLM))
	assert.True(t, ok)
	assert.Equal(t, VLLM, tool)
	for _, in := range []string{`{"id":"a","completion_tokens":1}`, "request_id,prompt_tokens\n", ""} {
		_, ok := Detect([]byte(in))
		assert.False(t, ok, in)
	}
	f, err := Read(strings.NewReader(smallVLLM), "")
	require.NoError(t, err)
	assert.Equal(t, VLLM, f.Tool)
	_, err = Read(strings.NewReader(`{"id":"a"}`), "")
	assert.ErrorIs(t, err, ErrFormat)
}

// The number parser gives exactly what strconv.ParseFloat gives.
func TestNumberParsing(t *testing.T) {
	for _, in := range []string{"0", "-0", "1", "0.5", "123.456", "1e-05", "9.5367431640625e-07", "1E+3", "0.041889254203627824",
		"1.7976931348623157e308", "5e-324", "12345678901234567890123", "-2.5", "NaN", "Infinity", "-Infinity",
		// 17 significant digits that the earlier fast path put one unit in the last place off
		"0.9745666315653629", "9007199254740993", "9007199254740995", "18014398509481985",
		// exact midpoints between two float64s: ties go to the even neighbour
		"9007199254740993.0", "9223372036854775808", "4503599627370497.5",
		"0.30000000000000004", "1.0000000000000002", "0.99999999999999994", "0.99999999999999995",
	} {
		s := &scanner{b: []byte(in)}
		got, err := s.number()
		require.NoError(t, err, in)
		want := mustParse(in)
		if want != want {
			assert.True(t, got != got, in)
			continue
		}
		assert.Equal(t, math.Float64bits(want), math.Float64bits(got), "%s: got %v, want %v", in, got, want)
	}
	for _, bad := range []string{"-", ".5", "1.", "1e", "+1", "--1"} {
		s := &scanner{b: []byte(bad)}
		_, err := s.number()
		assert.Error(t, err, bad)
	}
}

// FuzzNumber checks the parser bit for bit against strconv.ParseFloat on
// any digits, point and exponent.
func FuzzNumber(f *testing.F) {
	f.Add(uint64(9745666315653629), int8(-16), false)
	f.Add(uint64(9007199254740993), int8(0), false)
	f.Add(uint64(12345678901234567890), int8(-22), true)
	f.Add(uint64(1), int8(22), false)
	f.Fuzz(func(t *testing.T, w uint64, e int8, neg bool) {
		str := strconv.FormatUint(w, 10) + "e" + strconv.Itoa(int(e))
		if neg {
			str = "-" + str
		}
		s := &scanner{b: []byte(str)}
		got, err := s.number()
		if err != nil {
			t.Fatalf("%s: %v", str, err)
		}
		if want := mustParse(str); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: got %v, want %v", str, got, want)
		}
	})
}

func FuzzReadVLLM(f *testing.F) {
	f.Add([]byte(smallVLLM))
	f.Add([]byte(`{"duration": 1, "input_lens": [5], "output_lens": [3], "ttfts": [0.01], "itls": [[0.000004, 0.02, 0.02]], "errors": [""], "start_times": [100.5]}`))
	f.Add([]byte(`{"duration": 1e400, "ttfts": [-0.0], "itls": [[1e-400]], "input_lens": [0], "output_lens": [0], "errors": [null]}`))
	if files, _ := filepath.Glob(filepath.Join(realdata, "vllm", "*qps01.json")); len(files) > 0 {
		if b, err := os.ReadFile(files[0]); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		file, err := ReadVLLM(bytes.NewReader(in))
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error of the wrong type: %v", err)
			}
			return
		}
		d, err := file.Dialect()
		if err != nil {
			return // summary only
		}
		for _, fig := range d.Figures {
			if fig.Value != fig.Value {
				t.Fatalf("%s is NaN", fig.Key)
			}
		}
		run, _ := file.Records()
		s, err := run.Summarize(llmmetrics.Options{Lenient: true, Window: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if s.Requests.Offered != len(run.Records) {
			t.Fatal("records lost")
		}
		if _, err := Compare(file, llmmetrics.Options{Lenient: true, Window: time.Second}); err != nil {
			t.Fatal(err)
		}
	})
}

// Against strconv on random floats in Python's shortest form (up to 17
// significant digits), and on random 16 to 19 digit decimals: bit for bit
// equal.
func TestNumberAgainstStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range 400_000 {
		var str string
		switch i % 3 {
		case 0:
			x := rng.Float64() * math.Pow(10, float64(rng.IntN(16)-8))
			str = strconv.FormatFloat(x, 'g', -1, 64)
		case 1:
			x := rng.Float64() * math.Pow(10, float64(rng.IntN(16)-8))
			str = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			digits := strconv.FormatUint(rng.Uint64N(9e18)+1e15, 10)
			point := rng.IntN(len(digits))
			str = digits[:point+1] + "." + digits[point+1:] + "1"
			str = strings.TrimSuffix(str, ".1")
		}
		s := &scanner{b: []byte(str)}
		got, err := s.number()
		require.NoError(t, err, str)
		if want := mustParse(str); got != want {
			t.Fatalf("%s: got %v, want %v", str, got, want)
		}
	}
}
