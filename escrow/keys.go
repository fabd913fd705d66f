package escrow

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Key layout. Everything this package stores lives under three prefixes of
// the node's Badger DB; no other package writes them. Network-supplied parts
// (job IDs) are base32 (RFC 4648, lowercase, no padding) so they can neither
// contain the separator nor escape their namespace. Times in keys are
// fixed-width big-endian so byte order is time order.
const (
	escrowPrefix  = "escrow/"
	jobPrefix     = escrowPrefix + "job/"
	duePrefix     = escrowPrefix + "due/"
	payloadPrefix = escrowPrefix + "payload/"
	schemaKeyStr  = escrowPrefix + "schema"
	acctPrefix    = "acct/"
	balanceKeyStr = acctPrefix + "balance"
	depositPrefix = acctPrefix + "deposit/"
	receiptPrefix = "receipt/"
)

// keyEncoding encodes job IDs inside keys.
var keyEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

func encodeKeyPart(s string) string { return strings.ToLower(keyEncoding.EncodeToString([]byte(s))) }

func decodeKeyPart(s string) (string, error) {
	b, err := keyEncoding.DecodeString(strings.ToUpper(s))
	if err != nil {
		return "", fmt.Errorf("decode key part %q: %w", s, err)
	}
	if len(b) == 0 || encodeKeyPart(string(b)) != s {
		return "", fmt.Errorf("decode key part %q: not canonical base32", s)
	}
	return string(b), nil
}

var errBadKey = errors.New("malformed escrow key")

// schemaKey is "escrow/schema": the schema version of everything below,
// checked at open.
func schemaKey() []byte { return []byte(schemaKeyStr) }

// jobKey is "escrow/job/<role>/<base32 job ID>": one escrow record per job
// and role (a node hiring itself holds both a buyer and a seller record).
func jobKey(role Role, jobID string) []byte {
	return []byte(jobPrefix + string(role) + "/" + encodeKeyPart(jobID))
}

// parseJobKey reverses jobKey.
func parseJobKey(k []byte) (Role, string, error) {
	return parseRoleKey(jobPrefix, k)
}

// parseRoleKey reverses a "<prefix><role>/<base32 job ID>" key.
func parseRoleKey(prefix string, k []byte) (Role, string, error) {
	rest, ok := strings.CutPrefix(string(k), prefix)
	if !ok {
		return "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	role, enc, ok := strings.Cut(rest, "/")
	if !ok || !validRole(Role(role)) {
		return "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	id, err := decodeKeyPart(enc)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", errBadKey, err)
	}
	return Role(role), id, nil
}

// dueKey is "escrow/due/<8-byte big-endian unix ms>/<role>/<base32 job ID>":
// the timer index. A job in a non-final state has exactly one due key, the
// time its timer fires; the key is replaced in the same transaction as every
// state change.
func dueKey(at time.Time, role Role, jobID string) []byte {
	ms := at.UnixMilli()
	if ms < 0 {
		ms = 0
	}
	k := make([]byte, 0, len(duePrefix)+8+1+len(role)+1+MaxJobIDLen*2)
	k = append(k, duePrefix...)
	k = binary.BigEndian.AppendUint64(k, uint64(ms))
	k = append(k, '/')
	k = append(k, role...)
	k = append(k, '/')
	return append(k, encodeKeyPart(jobID)...)
}

// parseDueKey reverses dueKey.
func parseDueKey(k []byte) (time.Time, Role, string, error) {
	if len(k) < len(duePrefix)+9 || string(k[:len(duePrefix)]) != duePrefix || k[len(duePrefix)+8] != '/' {
		return time.Time{}, "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	ms := binary.BigEndian.Uint64(k[len(duePrefix):])
	role, enc, ok := strings.Cut(string(k[len(duePrefix)+9:]), "/")
	if !ok || !validRole(Role(role)) {
		return time.Time{}, "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	id, err := decodeKeyPart(enc)
	if err != nil {
		return time.Time{}, "", "", fmt.Errorf("%w: %w", errBadKey, err)
	}
	return time.UnixMilli(int64(ms)).UTC(), Role(role), id, nil
}

// balanceKey is "acct/balance": the node's one account.
func balanceKey() []byte { return []byte(balanceKeyStr) }

// depositKey is "acct/deposit/<8-byte big-endian unix ns>/<8 random hex>":
// the log of test-credit deposits, in time order.
func depositKey(at time.Time, nonce string) []byte {
	k := make([]byte, 0, len(depositPrefix)+8+1+len(nonce))
	k = append(k, depositPrefix...)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
	k = append(k, '/')
	return append(k, nonce...)
}

// parseDepositKey reverses depositKey.
func parseDepositKey(k []byte) (time.Time, string, error) { return parseLogKey(k, depositPrefix) }

// parseLogKey reverses depositKey and withdrawalKey: "<prefix><8-byte
// ns>/<nonce>".
func parseLogKey(k []byte, prefix string) (time.Time, string, error) {
	if len(k) < len(prefix)+9 || string(k[:len(prefix)]) != prefix || k[len(prefix)+8] != '/' {
		return time.Time{}, "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	ns := binary.BigEndian.Uint64(k[len(prefix):])
	return time.Unix(0, int64(ns)).UTC(), string(k[len(prefix)+9:]), nil
}

// Receipt kinds: the signed messages kept as evidence.
const (
	receiptLock     = "lock"
	receiptDelivery = "delivery"
	receiptSettle   = "settle"
)

// receiptKey is "receipt/<base32 job ID>/<role>/<kind>": one signed message
// (lock, delivery, settle) of a job as this node saw it in that role.
func receiptKey(jobID string, role Role, kind string) []byte {
	return []byte(receiptPrefix + encodeKeyPart(jobID) + "/" + string(role) + "/" + kind)
}

// parseReceiptKey reverses receiptKey.
func parseReceiptKey(k []byte) (string, Role, string, error) {
	rest, ok := strings.CutPrefix(string(k), receiptPrefix)
	if !ok {
		return "", "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || !validRole(Role(parts[1])) {
		return "", "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	switch parts[2] {
	case receiptLock, receiptDelivery, receiptSettle:
	default:
		return "", "", "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	id, err := decodeKeyPart(parts[0])
	if err != nil {
		return "", "", "", fmt.Errorf("%w: %w", errBadKey, err)
	}
	return id, Role(parts[1]), parts[2], nil
}

// Payload kinds: the job's bytes kept with its evidence.
const (
	// PayloadInput is the job's input, as the lock's input_hash names it.
	PayloadInput = "input"
	// PayloadOutput is the delivered output, as the delivery's output_hash
	// names it.
	PayloadOutput = "output"
)

// payloadKey is "escrow/payload/<role>/<base32 job ID>/<kind>": the input or
// output bytes of a job, stored once, in the same transaction as the signed
// message that commits to their hash. Records and lists never carry them.
func payloadKey(role Role, jobID, kind string) []byte {
	return []byte(payloadPrefix + string(role) + "/" + encodeKeyPart(jobID) + "/" + kind)
}

// Spend indexes (spendcap.go): which buyer locks count against a spend
// cap, found by a seek to the start of the period instead of a scan of
// every record.
const (
	createdPrefix = escrowPrefix + "created/"
	scopePrefix   = escrowPrefix + "scope/"
)

// createdKey is "escrow/created/<8-byte big-endian unix ms>/<base32 job ID>":
// the buyer records in the order they were created. Lock writes it in the
// transaction that creates the record; stores older than the index get it
// at open (indexCreated).
func createdKey(at time.Time, jobID string) []byte {
	k := make([]byte, 0, len(createdPrefix)+8+1+MaxJobIDLen*2)
	k = append(k, createdPrefix...)
	k = appendMillis(k, at)
	k = append(k, '/')
	return append(k, encodeKeyPart(jobID)...)
}

// parseCreatedKey reverses createdKey.
func parseCreatedKey(k []byte) (time.Time, string, error) {
	return parseTimeID(k, createdPrefix)
}

// scopeKeyPrefix is "escrow/scope/<base32 scope>/": the locks made under
// one spend scope (an MCP session).
func scopeKeyPrefix(scope string) []byte {
	return []byte(scopePrefix + encodeKeyPart(scope) + "/")
}

// scopeKey is "escrow/scope/<base32 scope>/<8-byte big-endian unix
// ms>/<base32 job ID>": a buyer lock made under a spend scope, in time
// order within the scope. Lock writes it with the record.
func scopeKey(scope string, at time.Time, jobID string) []byte {
	k := scopeKeyPrefix(scope)
	k = appendMillis(k, at)
	k = append(k, '/')
	return append(k, encodeKeyPart(jobID)...)
}

// parseScopeKey reverses scopeKey.
func parseScopeKey(k []byte) (scope string, at time.Time, jobID string, err error) {
	rest, ok := strings.CutPrefix(string(k), scopePrefix)
	if !ok {
		return "", time.Time{}, "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	enc, _, ok := strings.Cut(rest, "/")
	if !ok {
		return "", time.Time{}, "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	if scope, err = decodeKeyPart(enc); err != nil {
		return "", time.Time{}, "", fmt.Errorf("%w: %w", errBadKey, err)
	}
	at, jobID, err = parseTimeID(k, string(scopeKeyPrefix(scope)))
	return scope, at, jobID, err
}

// appendMillis appends t as 8-byte big-endian unix milliseconds (0 for
// times before 1970), so byte order is time order.
func appendMillis(k []byte, t time.Time) []byte {
	return binary.BigEndian.AppendUint64(k, uint64(max(t.UnixMilli(), 0)))
}

// parseTimeID reads "<prefix><8-byte ms>/<base32 job ID>".
func parseTimeID(k []byte, prefix string) (time.Time, string, error) {
	if len(k) < len(prefix)+10 || string(k[:len(prefix)]) != prefix || k[len(prefix)+8] != '/' {
		return time.Time{}, "", fmt.Errorf("%w: %q", errBadKey, k)
	}
	ms := binary.BigEndian.Uint64(k[len(prefix):])
	id, err := decodeKeyPart(string(k[len(prefix)+9:]))
	if err != nil {
		return time.Time{}, "", fmt.Errorf("%w: %w", errBadKey, err)
	}
	return time.UnixMilli(int64(ms)).UTC(), id, nil
}

// Rail keys (rail.go).
const (
	railOpenPrefix   = escrowPrefix + "railopen/"
	railRefPrefix    = escrowPrefix + "railref/"
	railSumPrefix    = escrowPrefix + "railsum/"
	railSumsBuiltKey = escrowPrefix + "railsum-built"
	railStatePrefix  = escrowPrefix + "railstate/"
	railBookedPrefix = acctPrefix + "rail/"
	railWatchPrefix  = escrowPrefix + "railwatch/"
	withdrawalPrefix = acctPrefix + "withdrawal/"
)

// railOpenCounterpartyPrefix is "escrow/railopen/<role>/<base32
// counterparty>/": the records of role open on the rail with one address.
func railOpenCounterpartyPrefix(role Role, counterparty string) []byte {
	return []byte(railOpenPrefix + string(role) + "/" + encodeKeyPart(counterparty) + "/")
}

// railOpenKey is "escrow/railopen/<role>/<base32 counterparty>/<base32 job
// ID>/<amount in decimal micro-units>", no value: a record the rail may
// still pay or must still confirm (railOpen). saveRecord moves it with the
// record. The amount is in the key so that summing what is open with one
// counterparty reads keys only.
func railOpenKey(role Role, counterparty, jobID string, amount int64) []byte {
	k := append(railOpenCounterpartyPrefix(role, counterparty), encodeKeyPart(jobID)...)
	return strconv.AppendInt(append(k, '/'), amount, 10)
}

// railSumKey is "escrow/railsum/<role>/<base32 counterparty>" holding, in
// decimal micro-units, the sum of the amounts in the rail open index under
// railOpenCounterpartyPrefix (absent: zero). moveRailOpen keeps it with the
// index, so that what is open with a counterparty is one read, not a scan
// of every open job and every deleted index key (issue 25).
func railSumKey(role Role, counterparty string) []byte {
	return []byte(railSumPrefix + string(role) + "/" + encodeKeyPart(counterparty))
}

// parseRailOpenKey reverses railOpenKey.
func parseRailOpenKey(k []byte) (role Role, counterparty, jobID string, amount int64, err error) {
	rest, ok := strings.CutPrefix(string(k), railOpenPrefix)
	if !ok {
		return "", "", "", 0, fmt.Errorf("%w: %q", errBadKey, k)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 4 || !validRole(Role(parts[0])) {
		return "", "", "", 0, fmt.Errorf("%w: %q", errBadKey, k)
	}
	if counterparty, err = decodeKeyPart(parts[1]); err != nil {
		return "", "", "", 0, fmt.Errorf("%w: %w", errBadKey, err)
	}
	if jobID, err = decodeKeyPart(parts[2]); err != nil {
		return "", "", "", 0, fmt.Errorf("%w: %w", errBadKey, err)
	}
	if amount, err = strconv.ParseInt(parts[3], 10, 64); err != nil || amount < 0 || strconv.FormatInt(amount, 10) != parts[3] {
		return "", "", "", 0, fmt.Errorf("%w: amount in %q", errBadKey, k)
	}
	return Role(parts[0]), counterparty, jobID, amount, nil
}

// railRefKey is "escrow/railref/<base32 rail ref>/<role>" holding the job
// ID: the rail names jobs by its own reference (Rail.JobRef).
func railRefKey(ref string, role Role) []byte {
	return []byte(railRefPrefix + encodeKeyPart(ref) + "/" + string(role))
}

// railWatchKey is "escrow/railwatch/<role>/<base32 job ID>", no value: a
// record whose chain outcome the rail still watches for a reorg
// (railWatched). saveRecord moves it with the record.
func railWatchKey(role Role, jobID string) []byte {
	return []byte(railWatchPrefix + string(role) + "/" + encodeKeyPart(jobID))
}

// parseRailWatchKey reverses railWatchKey.
func parseRailWatchKey(k []byte) (Role, string, error) {
	return parseRoleKey(railWatchPrefix, k)
}

// railStateKey is "escrow/railstate/<base32 name>": a rail's own state.
func railStateKey(name string) []byte { return []byte(railStatePrefix + encodeKeyPart(name)) }

// railBookedKey is "acct/rail/<base32 ref>": a rail deposit or withdrawal
// was booked (BookRail), so it is booked once.
func railBookedKey(ref string) []byte { return []byte(railBookedPrefix + encodeKeyPart(ref)) }

// withdrawalKey is "acct/withdrawal/<8-byte big-endian unix ns>/<8 hex>":
// the log of rail withdrawals, like depositKey.
func withdrawalKey(at time.Time, nonce string) []byte {
	k := make([]byte, 0, len(withdrawalPrefix)+8+1+len(nonce))
	k = append(k, withdrawalPrefix...)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
	k = append(k, '/')
	return append(k, nonce...)
}
