package failpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind is what a failpoint does when it is hit.
type Kind int

// Kinds of action.
const (
	// Kill sends SIGKILL to the own process.
	Kill Kind = iota + 1
	// Sleep pauses the calling goroutine.
	Sleep
	// Set gives the point a value (Value), for a fault that is a wrong
	// number rather than a crash: a seller quoting above its listing.
	Set
)

// Limits of a spec; they keep a typo from hanging a test for hours.
const (
	// maxSpecLen caps the whole environment value.
	maxSpecLen = 4096
	// maxNameLen caps one failpoint name.
	maxNameLen = 128
	// maxSleep caps sleep(MS).
	maxSleep = time.Hour
	// maxHit caps kill@N.
	maxHit = 1 << 30
)

// ErrSpec wraps every error of Parse.
var ErrSpec = errors.New("bad failpoint spec")

// Action is what one failpoint does.
type Action struct {
	Kind Kind
	// At is the hit that kills (1 is the first); Kill only.
	At int
	// Sleep is how long Sleep pauses.
	Sleep time.Duration
	// Value is what Set gives the point.
	Value int64
}

// String renders the action as Parse reads it.
func (a Action) String() string {
	switch a.Kind {
	case Kill:
		if a.At <= 1 {
			return "kill"
		}
		return "kill@" + strconv.Itoa(a.At)
	case Sleep:
		return "sleep(" + strconv.FormatInt(a.Sleep.Milliseconds(), 10) + ")"
	case Set:
		return "set(" + strconv.FormatInt(a.Value, 10) + ")"
	}
	return "none"
}

// Parse reads a SWARMWAGE_FAILPOINTS value: name=action terms separated by
// commas (see the package doc). Spaces around terms are ignored; an empty
// value configures nothing. A name given twice is an error.
func Parse(spec string) (map[string]Action, error) {
	if len(spec) > maxSpecLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrSpec, maxSpecLen)
	}
	out := make(map[string]Action)
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for _, term := range strings.Split(spec, ",") {
		term = strings.TrimSpace(term)
		name, act, ok := strings.Cut(term, "=")
		if !ok {
			return nil, fmt.Errorf("%w: term %q: want name=action", ErrSpec, term)
		}
		name = strings.TrimSpace(name)
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("%w: term %q: %v", ErrSpec, term, err)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%w: failpoint %q given twice", ErrSpec, name)
		}
		a, err := parseAction(strings.TrimSpace(act))
		if err != nil {
			return nil, fmt.Errorf("%w: term %q: %v", ErrSpec, term, err)
		}
		out[name] = a
	}
	return out, nil
}

// checkName accepts names made of lowercase letters, digits and -_./.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("name longer than %d bytes", maxNameLen)
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '/'
		if !ok {
			return fmt.Errorf("name %q: only a-z, 0-9 and -_./ are allowed", name)
		}
	}
	return nil
}

func parseAction(s string) (Action, error) {
	switch {
	case s == "kill":
		return Action{Kind: Kill, At: 1}, nil
	case strings.HasPrefix(s, "kill@"):
		n, err := strconv.Atoi(s[len("kill@"):])
		if err != nil || n < 1 || n > maxHit {
			return Action{}, fmt.Errorf("kill@N: N must be a whole number from 1 to %d", maxHit)
		}
		return Action{Kind: Kill, At: n}, nil
	case strings.HasPrefix(s, "sleep(") && strings.HasSuffix(s, ")"):
		ms, err := strconv.ParseInt(s[len("sleep("):len(s)-1], 10, 64)
		if err != nil || ms < 0 || ms > maxSleep.Milliseconds() {
			return Action{}, fmt.Errorf("sleep(MS): MS must be whole milliseconds from 0 to %d", maxSleep.Milliseconds())
		}
		return Action{Kind: Sleep, Sleep: time.Duration(ms) * time.Millisecond}, nil
	case strings.HasPrefix(s, "set(") && strings.HasSuffix(s, ")"):
		v, err := strconv.ParseInt(s[len("set("):len(s)-1], 10, 64)
		if err != nil {
			return Action{}, errors.New("set(N): N must be a whole number")
		}
		return Action{Kind: Set, Value: v}, nil
	}
	return Action{}, fmt.Errorf("action %q: want kill, kill@N, sleep(MS) or set(N)", s)
}
