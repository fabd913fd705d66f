package x402

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
)

// Storage: one record per authorization, in the node's Badger under
//
//	x402/auth/<chain id, decimal>/<token, 40 hex>/<from, 40 hex>/<nonce, 64 hex>
//
// (every part parsed from the payment before it is written, so none can
// hold the separator). The value is versioned JSON (record).
const (
	keyPrefix     = "x402/auth/"
	recordVersion = 1
)

// States of an authorization's record.
const (
	// stateHiring: accepted, the job runs; nothing may be settled yet.
	stateHiring = "hiring"
	// stateVerified: the output passed verification; the authorization is
	// to be settled (restart: settle it).
	stateVerified = "verified"
	// stateSettled: the transfer is on chain; the answer is the output.
	stateSettled = "settled"
	// stateFailed: the job failed, its output failed verification, the
	// gateway stopped while it ran, or the authorization cannot be
	// settled; it is never settled.
	stateFailed = "failed"
)

// record is one authorization's state and, once terminal, the answer every
// replay of its header gets.
type record struct {
	V          int       `json:"v"`
	State      string    `json:"state"`
	Capability string    `json:"capability"`
	Payer      string    `json:"payer"`
	Amount     string    `json:"amount"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	// The authorization, to settle after a restart.
	Header string `json:"header"`
	// JobID and the answer: status, JSON body, PAYMENT-RESPONSE.
	JobID    string          `json:"job_id,omitempty"`
	Status   int             `json:"status,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
	Response *SettleResponse `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
}

func (r record) terminal() bool { return r.State == stateSettled || r.State == stateFailed }

// authKey is the record key of from's nonce on token at chainID.
func authKey(chainID int64, token, from common.Address, nonce [32]byte) []byte {
	return fmt.Appendf(nil, "%s%d/%s/%s/%s", keyPrefix, chainID,
		strings.ToLower(hex.EncodeToString(token[:])), strings.ToLower(hex.EncodeToString(from[:])), hex.EncodeToString(nonce[:]))
}

var errNotFound = errors.New("x402: no record")

func getRecord(db *badger.DB, key []byte) (record, error) {
	var r record
	err := db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return errNotFound
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error { return json.Unmarshal(v, &r) })
	})
	if err != nil {
		return record{}, err
	}
	if r.V > recordVersion {
		return record{}, fmt.Errorf("x402 record %s has version %d, this binary reads %d: upgrade swarmwage", key, r.V, recordVersion)
	}
	return r, nil
}

// createRecord writes r under key unless a record is there; it returns
// the record found (and false) if one was.
func createRecord(db *badger.DB, key []byte, r record) (record, bool, error) {
	var found record
	created := false
	r.V = recordVersion
	b, err := json.Marshal(r)
	if err != nil {
		return record{}, false, err
	}
	for range 5 {
		err = db.Update(func(txn *badger.Txn) error {
			item, err := txn.Get(key)
			if err == nil {
				return item.Value(func(v []byte) error { return json.Unmarshal(v, &found) })
			}
			if !errors.Is(err, badger.ErrKeyNotFound) {
				return err
			}
			created = true
			return txn.Set(key, b)
		})
		if !errors.Is(err, badger.ErrConflict) {
			break
		}
		created = false
	}
	if err != nil {
		return record{}, false, fmt.Errorf("store x402 authorization: %w", err)
	}
	if created {
		return r, true, nil
	}
	return found, false, nil
}

// putRecord overwrites key's record (one writer per key: the handler that
// created it, or the restart's resume).
func putRecord(db *badger.DB, key []byte, r record) error {
	r.V = recordVersion
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set(key, b) }); err != nil {
		return fmt.Errorf("store x402 authorization: %w", err)
	}
	return nil
}

// openRecords lists the records that are not terminal.
func openRecords(db *badger.DB) (map[string]record, error) {
	out := map[string]record{}
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(keyPrefix), PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var r record
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &r) }); err != nil {
				return err
			}
			if !r.terminal() {
				out[string(it.Item().KeyCopy(nil))] = r
			}
		}
		return nil
	})
	return out, err
}

// answer is a response the handler writes and a record keeps.
type answer struct {
	status   int
	body     any
	required *PaymentRequired
	settled  *SettleResponse
}

func (a answer) write(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if a.required != nil {
		if v, err := EncodeHeader(a.required); err == nil {
			h.Set(HeaderPaymentRequired, v)
		}
	}
	if a.settled != nil {
		if v, err := EncodeHeader(a.settled); err == nil {
			h.Set(HeaderPaymentResponse, v)
		}
	}
	h.Set("Access-Control-Expose-Headers", HeaderPaymentRequired+", "+HeaderPaymentResponse)
	w.WriteHeader(a.status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(a.body)
}

func (r record) answer() answer {
	return answer{status: r.Status, body: r.Body, settled: r.Response}
}
