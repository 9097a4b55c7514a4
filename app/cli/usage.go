package cli

import "github.com/switchboard-dev/switchboard/store"

// sessionUsageText is a session's token usage for a person: the counts,
// "no usage reported" for a CLI that reports none (aider, a shell), "-"
// before anything was read.
func sessionUsageText(u *store.Usage) string {
	if u == nil {
		return "-"
	}
	return u.Summary()
}

// packetUsageText is a packet's token usage for a person: what its
// attempts' sessions reported while they held it.
func packetUsageText(u *store.Usage) string {
	if u == nil {
		return "none reported"
	}
	return u.Summary() + " (" + u.Source + ")"
}

// profileUsageText says where a profile's CLI records its token usage, or
// that it records none.
func profileUsageText(source string) string {
	if source == "" {
		return "none reported"
	}
	return source
}
