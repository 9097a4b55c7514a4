package app

import "github.com/switchboard-dev/switchboard/store"

// usageText is a session's or packet's token usage as the windows show
// it: "12.3k in · 1.2k out · 40k cached", "no usage reported" for a CLI
// that reports none (aider, a shell); "" when nothing was read (yet).
func usageText(u *store.Usage) string {
	if u == nil {
		return ""
	}
	return u.Summary()
}

// usageSuffix is usageText after sep, or "" for none: for a line of
// facts that leaves out what is not known.
func usageSuffix(sep string, u *store.Usage) string {
	if t := usageText(u); t != "" {
		return sep + t
	}
	return ""
}
