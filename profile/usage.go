package profile

// Usage sources: where a profile's CLI records its token counts (the
// usage package has a reader for each), and UsageNone for one that
// records none (aider, a shell).
const (
	UsageClaude = "claude"
	UsageCodex  = "codex"
	UsageGemini = "gemini"
	UsageNone   = "none"
)

// usageSources are the sources a profile may name.
func usageSources() []string { return []string{UsageClaude, UsageCodex, UsageGemini} }
