package escrow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Amount is an amount of micro-credits whose JSON is a decimal string of
// credits ("0.05"), as everywhere on the control API.
type Amount int64

// MarshalJSON writes the decimal string.
func (a Amount) MarshalJSON() ([]byte, error) { return json.Marshal(FormatAmount(int64(a))) }

// UnmarshalJSON parses the decimal string.
func (a *Amount) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("decode amount: %w", err)
	}
	v, err := ParseAmount(s)
	if err != nil {
		return err
	}
	*a = Amount(v)
	return nil
}

// HistoryRow is the money of the jobs in one bucket of a History (a day or
// a capability). Buyer side: Hires jobs bought, of which Spent was paid to
// sellers, Held is still locked, Refunded came back. Seller side: Sales jobs
// sold, of which Earned was credited and Pending released by this node's
// timer, awaiting the buyer's confirmation.
type HistoryRow struct {
	// Date (YYYY-MM-DD, the node's local calendar day the job was created)
	// or Capability names the bucket.
	Date       string `json:"date,omitempty"`
	Capability string `json:"capability,omitempty"`

	Hires    int    `json:"hires"`
	Spent    Amount `json:"spent"`
	Held     Amount `json:"held"`
	Refunded Amount `json:"refunded"`
	Sales    int    `json:"sales"`
	Earned   Amount `json:"earned"`
	Pending  Amount `json:"pending"`
}

// History is what this node spent and earned since a time, per day and per
// capability, from its escrow records.
type History struct {
	Since        time.Time    `json:"since,omitzero"`
	Days         []HistoryRow `json:"days"`
	Capabilities []HistoryRow `json:"capabilities"`
	Total        HistoryRow   `json:"total"`
}

// History sums the escrow records created at or after since, by the day
// they were created (in loc; nil: the local time zone) and by capability,
// days and capabilities sorted. Bought jobs are read through the
// created-at index, so an old node reads only the recent ones; sold jobs
// have no such index and are all scanned.
func (e *Escrow) History(ctx context.Context, since time.Time, loc *time.Location) (History, error) {
	if loc == nil {
		loc = time.Local
	}
	h := History{Since: since, Days: []HistoryRow{}, Capabilities: []HistoryRow{}}
	days, caps := map[string]*HistoryRow{}, map[string]*HistoryRow{}
	add := func(r *storedRecord) {
		date := r.CreatedAt.In(loc).Format(time.DateOnly)
		if days[date] == nil {
			days[date] = &HistoryRow{Date: date}
		}
		capID := r.Capability
		if capID == "" {
			capID = "-"
		}
		if caps[capID] == nil {
			caps[capID] = &HistoryRow{Capability: capID}
		}
		for _, row := range []*HistoryRow{days[date], caps[capID], &h.Total} {
			row.add(r)
		}
	}
	err := e.view(ctx, func(txn *tx) error {
		prefix := []byte(createdPrefix)
		start := appendMillis(append([]byte(nil), prefix...), since)
		err := scanKeys(txn, prefix, start, func(k []byte) error {
			_, id, err := parseCreatedKey(k)
			if err != nil {
				return err
			}
			r, err := loadRecord(txn, RoleBuyer, id)
			if errors.Is(err, ErrNotFound) {
				return nil // an index entry whose record is gone
			}
			if err != nil {
				return err
			}
			if !r.CreatedAt.Before(since) {
				add(r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		return scanRecords(txn, RoleSeller, func(r *storedRecord) error {
			if !r.CreatedAt.Before(since) {
				add(r)
			}
			return nil
		})
	})
	if err != nil {
		return History{}, fmt.Errorf("escrow history since %s: %w", wireTime(since), err)
	}
	for _, row := range days {
		h.Days = append(h.Days, *row)
	}
	for _, row := range caps {
		h.Capabilities = append(h.Capabilities, *row)
	}
	sort.Slice(h.Days, func(i, j int) bool { return h.Days[i].Date < h.Days[j].Date })
	sort.Slice(h.Capabilities, func(i, j int) bool { return h.Capabilities[i].Capability < h.Capabilities[j].Capability })
	return h, nil
}

// add counts one record into the row.
func (row *HistoryRow) add(r *storedRecord) {
	amt := Amount(r.Amount)
	if r.Role == RoleBuyer {
		row.Hires++
		switch {
		case r.State == StateReleased:
			row.Spent += amt
		case r.State == StateRefunded:
			row.Refunded += amt
		case !r.State.Final():
			row.Held += amt
		}
		return
	}
	row.Sales++
	if r.State == StateReleased {
		if r.Provisional {
			row.Pending += amt
		} else {
			row.Earned += amt
		}
	}
}
