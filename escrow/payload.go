package escrow

import (
	"context"
	"errors"
	"fmt"
)

// MaxPayloadSize caps one stored input or output: the largest output a
// handler may return, with room for its JSON framing.
const MaxPayloadSize = 33 << 20

// putPayload stores a job's input or output after checking that it is the
// bytes hash names.
func putPayload(txn *tx, role Role, jobID, kind string, data []byte, hash string) error {
	if len(data) > MaxPayloadSize {
		return fmt.Errorf("%w: %s of %d bytes is over the %d byte limit", ErrInvalidMessage, kind, len(data), MaxPayloadSize)
	}
	if HashHex(data) != hash {
		return fmt.Errorf("%w: the %s does not match its signed hash", ErrInvalidMessage, kind)
	}
	if err := txn.set(payloadKey(role, jobID, kind), data); err != nil {
		return fmt.Errorf("write %s of %s: %w", kind, jobID, err)
	}
	return nil
}

// Payload returns the input or output (PayloadInput, PayloadOutput) of a job
// in role, as stored with the signed message that commits to its hash. A
// payload never stored is ErrNotFound.
func (e *Escrow) Payload(ctx context.Context, role Role, jobID, kind string) ([]byte, error) {
	if kind != PayloadInput && kind != PayloadOutput {
		return nil, fmt.Errorf("read payload of %s: unknown kind %q", truncate(jobID), kind)
	}
	var out []byte
	err := e.view(ctx, func(txn *tx) error {
		v, err := txn.get(payloadKey(role, jobID, kind))
		out = v
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("%s of job %s: %w", kind, truncate(jobID), ErrNotFound)
		}
		return nil, fmt.Errorf("read %s of job %s: %w", kind, truncate(jobID), err)
	}
	return out, nil
}
