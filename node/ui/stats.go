package ui

import (
	"sort"
	"time"

	"github.com/swarmwage/swarmwage/escrow"
)

// Summary is the answer of GET /v1/dashboard/summary: the node's status and
// its money per day and per capability. Amounts are decimal credits.
type Summary struct {
	Version      string `json:"version"`
	Reachability string `json:"reachability"`
	// Days are the last N local calendar days, oldest first, every day
	// present (zero when nothing settled).
	Days []DayTotals `json:"days"`
	// Capabilities are every capability the node bought or sold, by name.
	Capabilities []CapTotals `json:"capabilities"`
}

// DayTotals is what the node earned and spent on one local calendar day,
// by the day each job settled.
type DayTotals struct {
	Day    string `json:"day"` // YYYY-MM-DD
	Earned string `json:"earned"`
	Spent  string `json:"spent"`
}

// CapTotals is one capability's jobs and money, all time.
type CapTotals struct {
	Capability string `json:"capability"`
	// Served counts the jobs of it this node sold, whatever their outcome.
	Served int `json:"served"`
	// Sold counts those released for good; Earned is their sum (the
	// wallet's "earned" counts the same).
	Sold   int    `json:"sold"`
	Earned string `json:"earned"`
	// Pending sums releases this node's timers made that the buyers have
	// not confirmed (the wallet's "pending").
	Pending string `json:"pending"`
	// Bought counts the jobs of it this node hired; Spent sums those
	// released to their sellers (the wallet's "paid").
	Bought int    `json:"bought"`
	Spent  string `json:"spent"`
}

type capSums struct {
	served, sold, bought   int
	earned, pending, spent int64
}

// Summarize totals recs by day (the days local calendar days up to and
// including now's) and by capability.
func Summarize(recs []escrow.Record, now time.Time, days int) Summary {
	loc := now.Location()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	first := today.AddDate(0, 0, -(days - 1))
	earned := make([]int64, days)
	spent := make([]int64, days)
	caps := make(map[string]*capSums)
	for _, r := range recs {
		c := caps[r.Capability]
		if c == nil {
			c = &capSums{}
			caps[r.Capability] = c
		}
		day := -1
		if !r.SettledAt.IsZero() {
			st := r.SettledAt.In(loc)
			d := time.Date(st.Year(), st.Month(), st.Day(), 0, 0, 0, 0, loc)
			if !d.Before(first) && !d.After(today) {
				day = dayIndex(first, d)
			}
		}
		released := r.State == escrow.StateReleased
		switch r.Role {
		case escrow.RoleSeller:
			c.served++
			switch {
			case released && r.Provisional:
				c.pending += r.Amount
			case released:
				c.sold++
				c.earned += r.Amount
				if day >= 0 {
					earned[day] += r.Amount
				}
			}
		case escrow.RoleBuyer:
			c.bought++
			if released {
				c.spent += r.Amount
				if day >= 0 {
					spent[day] += r.Amount
				}
			}
		}
	}
	out := Summary{Days: make([]DayTotals, days), Capabilities: []CapTotals{}}
	for i := range days {
		out.Days[i] = DayTotals{
			Day:    first.AddDate(0, 0, i).Format(time.DateOnly),
			Earned: escrow.FormatAmount(earned[i]),
			Spent:  escrow.FormatAmount(spent[i]),
		}
	}
	for id, c := range caps {
		out.Capabilities = append(out.Capabilities, CapTotals{
			Capability: id, Served: c.served, Sold: c.sold, Bought: c.bought,
			Earned: escrow.FormatAmount(c.earned), Pending: escrow.FormatAmount(c.pending), Spent: escrow.FormatAmount(c.spent),
		})
	}
	sort.Slice(out.Capabilities, func(i, j int) bool { return out.Capabilities[i].Capability < out.Capabilities[j].Capability })
	return out
}

// dayIndex counts calendar days from first to d, both local midnights; a
// day with a daylight-saving change is 23 or 25 hours long, so round.
func dayIndex(first, d time.Time) int {
	return int((d.Sub(first) + 12*time.Hour) / (24 * time.Hour))
}
