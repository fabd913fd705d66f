package verify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// confidenceSumTolerance is the spec's "sum(confidence) ≈ 1.0": within 0.01.
const confidenceSumTolerance = 0.01

// knownSources are the provenance pins research.linkedin.profile.enrich
// accepts: the spec's list (apify, phantombuster, proxycurl) and the
// upstream APIs its research.* paragraph names.
var knownSources = []string{"apify", "phantombuster", "proxycurl", "hunter", "tavily", "clearbit"}

var sentiments = []string{"positive", "negative", "neutral"}

type embedOut struct {
	Vector []float64 `json:"vector"`
	Dim    int       `json:"dim"`
}

func vectorLengthCheck(out embedOut) Check {
	return result(ckVectorLength, len(out.Vector) == out.Dim && out.Dim > 0,
		fmt.Sprintf("%d values", len(out.Vector)),
		fmt.Sprintf("vector has %d values but dim says %d", len(out.Vector), out.Dim))
}

func verifyEmbedText(_ context.Context, j *job) []Check {
	var out embedOut
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	model := j.param("model")
	want := textEmbedDims[model]
	return []Check{vectorLengthCheck(out), result(ckModelDimension, out.Dim == want,
		fmt.Sprintf("%s has %d dimensions", model, want),
		fmt.Sprintf("dim is %d but %s embeddings have %d dimensions", out.Dim, model, want))}
}

func verifyEmbedImage(_ context.Context, j *job) []Check {
	var out embedOut
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{vectorLengthCheck(out)}
}

type labelsOut struct {
	Labels []struct {
		Label      string  `json:"label"`
		Confidence float64 `json:"confidence"`
	} `json:"labels"`
}

func confidenceSumCheck(out labelsOut) Check {
	if len(out.Labels) == 0 {
		return fail(ckConfidenceSum, "labels is empty; confidences must sum to 1.0")
	}
	sum := 0.0
	for i, l := range out.Labels {
		if l.Confidence < 0 || l.Confidence > 1 {
			return fail(ckConfidenceSum, "labels[%d] (%q) has confidence %g, outside [0, 1]", i, l.Label, l.Confidence)
		}
		sum += l.Confidence
	}
	if math.Abs(sum-1) > confidenceSumTolerance {
		return fail(ckConfidenceSum, "confidences sum to %.4f; they must sum to 1.0 within %g (normalize them, e.g. softmax over all returned labels)", sum, confidenceSumTolerance)
	}
	return pass(ckConfidenceSum, "sum %.4f", sum)
}

func verifyClassifyImage(_ context.Context, j *job) []Check {
	var out labelsOut
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	tax := j.param("taxonomy")
	set := taxonomyLabels()[tax]
	var unknown []string
	for _, l := range out.Labels {
		if !set[foldLabel(l.Label)] {
			unknown = append(unknown, fmt.Sprintf("%q", l.Label))
		}
	}
	labels := result(ckLabelsInTaxonomy, len(unknown) == 0,
		fmt.Sprintf("all %d labels are %s labels", len(out.Labels), tax),
		fmt.Sprintf("labels %s are not %s labels (run 'swarmwage caps show classify.image.%s' for the list source)", strings.Join(unknown, ", "), tax, tax))
	return []Check{confidenceSumCheck(out), labels}
}

func verifyClassifyText(_ context.Context, j *job) []Check {
	var out labelsOut
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{confidenceSumCheck(out)}
}

func verifySentiment(_ context.Context, j *job) []Check {
	var out struct {
		Sentiment  string  `json:"sentiment"`
		Confidence float64 `json:"confidence"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{
		result(ckSentimentEnum, slices.Contains(sentiments, out.Sentiment), out.Sentiment,
			fmt.Sprintf("sentiment is %q; it must be one of %s", out.Sentiment, strings.Join(sentiments, ", "))),
		confidenceCheck(out.Confidence),
	}
}

func verifyToxicity(_ context.Context, j *job) []Check {
	var out struct {
		Confidence float64 `json:"confidence"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	return []Check{confidenceCheck(out.Confidence)}
}

func verifyLinkedIn(_ context.Context, j *job) []Check {
	var out struct {
		Profile struct {
			URL    string `json:"url"`
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"profile"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	p := out.Profile
	var missing []string
	if strings.TrimSpace(p.URL) == "" {
		missing = append(missing, "profile.url")
	}
	if strings.TrimSpace(p.Name) == "" {
		missing = append(missing, "profile.name")
	}
	return []Check{
		result(ckProfileFields, len(missing) == 0, "url and name present",
			fmt.Sprintf("%s must be non-empty strings", strings.Join(missing, " and "))),
		result(ckSourceKnown, slices.Contains(knownSources, strings.ToLower(p.Source)), "source "+p.Source,
			fmt.Sprintf("profile.source is %q; it must name the upstream provider (%s)", p.Source, strings.Join(knownSources, ", "))),
	}
}

func verifyExecute(_ context.Context, j *job) []Check {
	var in struct {
		TimeoutMS *int64 `json:"timeout_ms"`
	}
	var out struct {
		ExitCode   int   `json:"exit_code"`
		DurationMS int64 `json:"duration_ms"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	timeout := int64(DefaultExecTimeoutMS)
	if in.TimeoutMS != nil {
		timeout = *in.TimeoutMS
	}
	return []Check{
		// 0, 1 and 124 are the contract's fixed meanings; a guest's own
		// sys.exit(n) is its exit status too, so any status a process can
		// have (0 to 255) is valid. The spec's column asks only for an int.
		result(ckExitCode, out.ExitCode >= 0 && out.ExitCode <= 255, fmt.Sprintf("exit code %d", out.ExitCode),
			fmt.Sprintf("exit_code is %d; a process exit status is 0 to 255 (0 clean exit, 1 uncaught exception, 124 timeout, n from sys.exit(n))", out.ExitCode)),
		result(ckDurationTimeout, out.DurationMS <= timeout+ExecGraceMS,
			fmt.Sprintf("%d ms within the %d ms timeout", out.DurationMS, timeout),
			fmt.Sprintf("duration_ms is %d, more than the %d ms timeout plus %d ms grace", out.DurationMS, timeout, ExecGraceMS)),
	}
}

// Sandbox timing rules of code.execute.sandboxed.
const (
	// DefaultExecTimeoutMS is the spec's default timeout_ms.
	DefaultExecTimeoutMS = 5000
	// ExecGraceMS is the grace over the timeout a duration may have: the
	// seller measures wall-clock time around instance start and teardown.
	ExecGraceMS = 1000
)
