package verify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	gomp3 "github.com/hajimehoshi/go-mp3"
	"github.com/tcolgate/mp3"
)

// Audio limits.
const (
	// MaxMP3Bytes caps decoded MP3 data: ten minutes of 256 kbit/s.
	MaxMP3Bytes = 20 << 20
	// mp3ProbePCM is how much PCM the decoder must produce: about half a
	// second of 44.1 kHz stereo, enough to prove the frames hold audio.
	mp3ProbePCM = 44100 * 4 / 2
	// minFrameShare is the share of the bytes (after tags) that must lie in
	// MPEG frames; random data and WAV files hit a frame sync by chance but
	// not for most of their length.
	minFrameShare = 0.5
)

func verifyTranscribeTimestamps(_ context.Context, j *job) []Check {
	var in struct {
		LanguageHint string `json:"language_hint"`
	}
	var out struct {
		Language string `json:"language"`
		Segments []struct {
			StartMS int64 `json:"start_ms"`
			EndMS   int64 `json:"end_ms"`
		} `json:"segments"`
	}
	if err := j.decode(&in, &out); err != nil {
		return decodeFailed(err)
	}
	var checks []Check
	switch hint := strings.ToLower(strings.TrimSpace(in.LanguageHint)); {
	case !IsISO6391(out.Language):
		checks = append(checks, fail(ckLanguageCode, "language %q is not a lowercase ISO 639-1 code (like en, it, ja)", out.Language))
	case hint != "" && IsISO6391(hint) && out.Language != hint:
		checks = append(checks, fail(ckLanguageCode, "language is %q but the buyer's language_hint forces %q", out.Language, hint))
	default:
		checks = append(checks, pass(ckLanguageCode, "%s", out.Language))
	}
	checks = append(checks, result(ckSegmentsNonEmpty, len(out.Segments) > 0,
		fmt.Sprintf("%d segments", len(out.Segments)), "segments is empty"))
	for i, s := range out.Segments {
		if s.EndMS < s.StartMS {
			return append(checks, fail(ckMonotonic, "segment %d ends (%d ms) before it starts (%d ms)", i, s.EndMS, s.StartMS))
		}
		if i == 0 {
			continue
		}
		prev := out.Segments[i-1]
		// The spec's OR rule: after the previous end, or at least not
		// before the previous start (overlapping speakers).
		if s.StartMS < prev.EndMS && s.StartMS < prev.StartMS {
			return append(checks, fail(ckMonotonic, "segment %d starts at %d ms, before segment %d's start (%d ms) and end (%d ms)", i, s.StartMS, i-1, prev.StartMS, prev.EndMS))
		}
	}
	return append(checks, pass(ckMonotonic, "segments are in order"))
}

func verifySpeech(_ context.Context, j *job) []Check {
	var out struct {
		AudioB64   string `json:"audio_b64"`
		DurationMS int64  `json:"duration_ms"`
	}
	if err := j.decode(nil, &out); err != nil {
		return decodeFailed(err)
	}
	raw, err := decodeBase64("audio_b64", out.AudioB64)
	var info MP3Info
	if err == nil {
		info, err = CheckMP3(raw)
	}
	if err != nil {
		return []Check{fail(ckValidMP3, "%v", err), durationCheck(0, out.DurationMS, false)}
	}
	return []Check{
		pass(ckValidMP3, "%d MPEG frames, %d bytes", info.Frames, len(raw)),
		durationCheck(info.Duration, out.DurationMS, true),
	}
}

func durationCheck(decoded time.Duration, claimedMS int64, haveAudio bool) Check {
	switch {
	case !haveAudio:
		return skipped(ckDuration, "the audio does not decode")
	case decoded <= 0:
		return fail(ckDuration, "the audio decodes to zero duration")
	case claimedMS <= 0:
		return fail(ckDuration, "duration_ms is %d; the audio lasts %d ms", claimedMS, decoded.Milliseconds())
	}
	return pass(ckDuration, "audio lasts %d ms (duration_ms says %d)", decoded.Milliseconds(), claimedMS)
}

// MP3Info describes an MP3 that CheckMP3 accepted.
type MP3Info struct {
	Frames   int
	Duration time.Duration
}

// CheckMP3 checks that b is MPEG audio: the frames found by a frame scan
// cover most of the data, and the first frames decode to PCM (a frame scan
// alone accepts a WAV file that happens to contain a frame sync).
func CheckMP3(b []byte) (info MP3Info, err error) {
	if len(b) == 0 {
		return MP3Info{}, errors.New("audio is empty")
	}
	if len(b) > MaxMP3Bytes {
		return MP3Info{}, fmt.Errorf("audio is %d bytes, the limit is %d", len(b), MaxMP3Bytes)
	}
	if bytes.HasPrefix(b, []byte("RIFF")) {
		return MP3Info{}, errors.New("audio is a RIFF/WAV file, not MP3")
	}
	body := skipID3v2(b)
	info, inFrames := scanFrames(body)
	if info.Frames == 0 {
		return MP3Info{}, errors.New("no MPEG audio frames found")
	}
	if share := float64(inFrames) / float64(len(body)); share < minFrameShare {
		return MP3Info{}, fmt.Errorf("only %.0f%% of the data is MPEG frames; not an MP3 stream", share*100)
	}
	if err := decodeProbe(b); err != nil {
		return MP3Info{}, err
	}
	return info, nil
}

// skipID3v2 drops a leading ID3v2 tag (10-byte header, syncsafe size).
func skipID3v2(b []byte) []byte {
	if len(b) < 10 || string(b[:3]) != "ID3" {
		return b
	}
	size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
	if b[5]&0x10 != 0 { // footer present
		size += 10
	}
	if 10+size >= len(b) {
		return b[len(b):]
	}
	return b[10+size:]
}

// scanFrames counts frames and their total duration and bytes.
func scanFrames(b []byte) (MP3Info, int) {
	dec := mp3.NewDecoder(bytes.NewReader(b))
	var f mp3.Frame
	var info MP3Info
	inFrames, skipped := 0, 0
	for {
		if err := dec.Decode(&f, &skipped); err != nil {
			return info, inFrames
		}
		info.Frames++
		info.Duration += f.Duration()
		inFrames += f.Size()
	}
}

// decodeProbe decodes the start of the stream to PCM. go-mp3 has panicked
// on hostile input in the past; a panic is a decode failure here.
func decodeProbe(b []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("MP3 does not decode: %v", r)
		}
	}()
	d, err := gomp3.NewDecoder(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("MP3 does not decode: %w", err)
	}
	buf := make([]byte, mp3ProbePCM)
	n, err := io.ReadFull(d, buf)
	if n == 0 {
		return fmt.Errorf("MP3 decodes to no audio: %w", err)
	}
	if err != nil && !slices.Contains([]error{io.EOF, io.ErrUnexpectedEOF}, err) {
		return fmt.Errorf("MP3 does not decode: %w", err)
	}
	return nil
}
