package verify_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/swarmwage/swarmwage/verify"
)

func TestCheckIDRules(t *testing.T) {
	testCases := []struct {
		name string
		id   string
		rule string // empty: valid
	}{
		{"taxonomy", "text.translate.en.it.fluent", ""},
		{"taxonomy short", "image.upscale.2x", ""},
		{"custom", "custom.acmecorp.handwriting-ocr", ""},
		{"wcp cap", "cap.doc.summarize", ""},
		{"wcp four", "cap.doc.pdf.extract", ""},
		{"wcp x", "x.acme.custom-analysis", ""},
		{"wcp org", "org.fafolab.research-ingest", ""},
		{"empty", "", "non-empty"},
		{"uppercase", "Text.x", "lowercase"},
		{"space", "text.sum marize", "no-spaces"},
		{"double dot", "text..summarize", "dot-separated"},
		{"trailing dot", "text.summarize.", "dot-separated"},
		{"underscore taxonomy", "text.sum_marize", "charset"},
		{"unknown domain", "video.generate", "domain"},
		{"domain only", "text", "domain-action"},
		{"custom short", "custom.acme", "custom-form"},
		{"too long", "text." + string(make([]byte, 0)) + repeat("a", 130), "length"},
		{"wcp uppercase", "cap.Doc.Summarize", "lowercase"},
		{"wcp underscore", "cap.doc.pdf_extract", "wcp-charset"},
		{"wcp five segments", "cap.doc.pdf.native.extract", "wcp-segments"},
		{"wcp too long", "cap.doc." + repeat("a", 60), "length"},
		{"wcp one segment", "cap", "wcp-segments"},
		{"wcp org without name", "org.acme", "wcp-org-namespace"},
		{"wcp species namespace", "wrk.doc.summarizer", "wcp-namespace"},
		{"unicode", "text.résumé", "charset"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := verify.CheckID(tc.id)
			if tc.rule == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, verify.ErrInvalidID)
			var ie *verify.IDError
			require.True(t, errors.As(err, &ie))
			require.Equal(t, tc.rule, ie.Rule, err.Error())
			require.Contains(t, err.Error(), `rule "`+tc.rule+`"`)
		})
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

func TestCheckPrefix(t *testing.T) {
	for _, ok := range []string{"text", "text.translate", "custom", "custom.acme", "cap.doc", "x", "text.translate.en.it.fluent"} {
		require.NoError(t, verify.CheckPrefix(ok), ok)
	}
	for _, bad := range []string{"", "Text", "video", "text..x", "cap.a.b.c.d"} {
		require.ErrorIs(t, verify.CheckPrefix(bad), verify.ErrInvalidID, bad)
	}
}

func TestCheckPublishableRejectsReservedNamespaces(t *testing.T) {
	require.NoError(t, verify.CheckPublishable("x.acme.summarize"))
	require.NoError(t, verify.CheckPublishable("text.summarize.short"))
	err := verify.CheckPublishable("cap.doc.summarize")
	var ie *verify.IDError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "reserved-namespace", ie.Rule)
	require.True(t, verify.IsReserved("evt.job.done"))
	require.False(t, verify.IsReserved("org.acme.x"))
}

func TestTombstoneValidate(t *testing.T) {
	good := verify.Tombstone{ID: "cap.doc.ocr.basic", Status: "deprecated", SupersededBy: "cap.doc.ocr", DeprecatedCatalog: "2.0.0", SunsetCatalog: "4.0.0"}
	require.NoError(t, good.Validate())
	testCases := []struct {
		name   string
		mutate func(*verify.Tombstone)
		want   string
	}{
		{"missing superseded_by", func(t *verify.Tombstone) { t.SupersededBy = "" }, "superseded_by is required"},
		{"bad superseded_by", func(t *verify.Tombstone) { t.SupersededBy = "cap.Doc" }, "superseded_by"},
		{"self", func(t *verify.Tombstone) { t.SupersededBy = t.ID }, "itself"},
		{"status", func(t *verify.Tombstone) { t.Status = "active" }, "status"},
		{"catalog", func(t *verify.Tombstone) { t.SunsetCatalog = "4" }, "sunset_catalog"},
		{"bad id", func(t *verify.Tombstone) { t.ID = "cap.doc_ocr" }, "id"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			ts := good
			tc.mutate(&ts)
			err := ts.Validate()
			require.ErrorIs(t, err, verify.ErrInvalidTombstone)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}
