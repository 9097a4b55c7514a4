package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/profile"
)

// Usage is what a model was asked and answered, in tokens, as the agent
// CLI itself recorded it (its transcript or session file; see the usage
// package). Nothing here is estimated by Switchboard: a CLI that reports
// nothing leaves a session with no counts (Source UsageNone).
//
// The four counts do not overlap: InputTokens are prompt tokens read
// neither from nor into the provider's prompt cache, CacheReadTokens the
// ones read from it, CacheWriteTokens the ones written to it; OutputTokens
// include reasoning ("thinking") tokens. A CLI that reports cached input
// inside its input count (Codex, Gemini CLI) is split by its reader.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	// CostUSD is the cost the CLI itself reported, in US dollars; 0 when
	// it reports none (none of the built-in profiles' CLIs writes one
	// where Switchboard reads).
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Source names where the counts came from: a profile's Usage (UsageClaude,
	// UsageCodex, UsageGemini), or UsageNone for a CLI that reports nothing.
	Source string `json:"source"`
	// UpdatedAt is when the counts last changed.
	UpdatedAt time.Time `json:"updated_at"`
}

// maxUsageCount bounds one count: far beyond any session (a billion
// tokens is thousands of dollars), low enough that sums never overflow.
const maxUsageCount = 1 << 50

// Tokens is the sum of the four counts.
func (u Usage) Tokens() int64 {
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// Plus returns u's counts and cost with v's added; Source and UpdatedAt
// are u's.
func (u Usage) Plus(v Usage) Usage {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
	u.CostUSD += v.CostUSD
	return u
}

// Minus returns u's counts and cost less v's, each at least 0 (a CLI that
// rewrote its file may report less than before; a packet never gets a
// negative share).
func (u Usage) Minus(v Usage) Usage {
	sub := func(a, b int64) int64 { return max(0, a-b) }
	u.InputTokens = sub(u.InputTokens, v.InputTokens)
	u.OutputTokens = sub(u.OutputTokens, v.OutputTokens)
	u.CacheReadTokens = sub(u.CacheReadTokens, v.CacheReadTokens)
	u.CacheWriteTokens = sub(u.CacheWriteTokens, v.CacheWriteTokens)
	u.CostUSD = max(0, u.CostUSD-v.CostUSD)
	return u
}

// sameCounts reports whether u and v count the same.
func (u Usage) sameCounts(v Usage) bool {
	return u.InputTokens == v.InputTokens && u.OutputTokens == v.OutputTokens &&
		u.CacheReadTokens == v.CacheReadTokens && u.CacheWriteTokens == v.CacheWriteTokens && u.CostUSD == v.CostUSD
}

// Summary is the counts in a few words, "12.3k in · 1.2k out · 40k cached
// · 2k cache write · $0.12", leaving out what is zero; for UsageNone,
// "no usage reported".
func (u Usage) Summary() string {
	if u.Source == profile.UsageNone {
		return "no usage reported"
	}
	parts := []string{CountText(u.InputTokens) + " in", CountText(u.OutputTokens) + " out"}
	if u.CacheReadTokens > 0 {
		parts = append(parts, CountText(u.CacheReadTokens)+" cached")
	}
	if u.CacheWriteTokens > 0 {
		parts = append(parts, CountText(u.CacheWriteTokens)+" cache write")
	}
	if u.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", u.CostUSD))
	}
	return strings.Join(parts, " · ")
}

// CountText writes a token count short: 950, 12.3k, 4.5M.
func CountText(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return trimZero(float64(n)/1e3) + "k"
	case n < 1_000_000_000:
		return trimZero(float64(n)/1e6) + "M"
	default:
		return trimZero(float64(n)/1e9) + "G"
	}
}

// trimZero prints f with one decimal under 100 (12.3, 4), none above.
func trimZero(f float64) string {
	if f >= 100 {
		return strconv.FormatFloat(math.Floor(f), 'f', 0, 64)
	}
	s := strconv.FormatFloat(math.Floor(f*10)/10, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// validate refuses counts no reader gives: negative, huge, an unknown
// source.
func (u Usage) validate() error {
	for _, n := range []int64{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens} {
		if n < 0 || n > maxUsageCount {
			return Deny(CodeInvalidArgument, "usage counts must be between 0 and %d", int64(maxUsageCount))
		}
	}
	if u.CostUSD < 0 || math.IsNaN(u.CostUSD) || math.IsInf(u.CostUSD, 0) || u.CostUSD > 1e9 {
		return Deny(CodeInvalidArgument, "usage cost must be a sum of dollars, not %v", u.CostUSD)
	}
	switch u.Source {
	case profile.UsageClaude, profile.UsageCodex, profile.UsageGemini:
	case profile.UsageNone:
		if u.Tokens() != 0 || u.CostUSD != 0 {
			return Deny(CodeInvalidArgument, "usage source %q carries no counts", profile.UsageNone)
		}
	default:
		return Deny(CodeInvalidArgument, "usage source must be %q, %q, %q or %q, not %q", profile.UsageClaude, profile.UsageCodex, profile.UsageGemini, profile.UsageNone, u.Source)
	}
	return nil
}

// RecordSessionUsage replaces a session's usage with u, the totals its
// CLI's files hold for it now (UpdatedAt is set here, when the counts
// change). Live and ended sessions alike: the last read of an agent's
// files may come after its end. A session's usage reaches its packets when
// their leases end (see attributeUsage). Denials: invalid_argument,
// not_found.
func (tx *Tx) RecordSessionUsage(id string, u Usage) (Session, error) {
	if err := u.validate(); err != nil {
		return Session{}, err
	}
	s, err := tx.Session(id)
	if err != nil {
		return Session{}, err
	}
	if !tx.setUsage(&s, u) {
		return s, nil
	}
	return s, tx.putSession(&s)
}

// setUsage records u as s's usage, in memory, and reports whether it
// changed anything.
func (tx *Tx) setUsage(s *Session, u Usage) bool {
	if s.Usage != nil && s.Usage.Source == u.Source && s.Usage.sameCounts(u) {
		return false
	}
	u.UpdatedAt = tx.now
	s.Usage = &u
	return true
}

// attributeUsage gives packet p, whose lease held by sessionID ends now
// (completed, released, expired, or its session ended), the session's
// usage not yet given to a packet: what the session used since its
// previous lease ended (or since it started, for its first) up to this
// end. So a session that did one packet gives that packet all its usage
// but the turns after the completion, and a packet claimed several times
// sums its attempts. The counts are the session's as last recorded
// (RecordSessionUsage), which the daemon refreshes every few seconds: a
// reply in the last moments before the end may go to the next packet.
// Called by the lease-ending methods, in their transaction; p is saved by
// them.
func (tx *Tx) attributeUsage(p *Packet, sessionID string) error {
	if sessionID == "" {
		return nil
	}
	s, err := tx.Session(sessionID)
	if err != nil || !tx.giveUsage(p, &s) {
		return nil // a lease of a session gone or uncounted: nothing to give
	}
	return tx.putSession(&s)
}

// giveUsage moves the share of s's usage not yet given to a packet onto p,
// in memory, and reports whether s changed (it is then the caller's to
// save). A session that counts nothing gives nothing.
func (tx *Tx) giveUsage(p *Packet, s *Session) bool {
	if s.Usage == nil || s.Usage.Source == profile.UsageNone {
		return false
	}
	given := Usage{}
	if s.UsageGiven != nil {
		given = *s.UsageGiven
	}
	share := s.Usage.Minus(given)
	total := share
	if p.Usage != nil {
		total = p.Usage.Plus(share)
	}
	total.Source, total.UpdatedAt = s.Usage.Source, tx.now
	p.Usage = &total
	now := *s.Usage
	s.UsageGiven = &now
	return true
}
