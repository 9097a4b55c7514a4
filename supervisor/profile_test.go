package supervisor

import (
	"testing"

	"github.com/switchboard-dev/switchboard/store"
)

func builtin(t testing.TB, id string) store.Profile {
	t.Helper()
	for _, p := range Builtins() {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no built-in profile %q", id)
	return store.Profile{}
}

// How the first prompt reaches an agent, by the profile's delivery mode
// and whether the person gave the prompt.
func TestFirstPromptDelivery(t *testing.T) {
	withArg := store.Profile{ID: "a", Prompt: store.PromptArgument, Args: []string{"--msg={prompt}"}}
	// "argument" with nowhere to put it: the person's prompt is typed
	// rather than lost.
	noArg := store.Profile{ID: "b", Prompt: store.PromptArgument, Args: []string{"--quiet"}}
	typed := store.Profile{ID: "c", Prompt: store.PromptTyped}
	none := store.Profile{ID: "d", Prompt: store.PromptNone}
	for _, c := range []struct {
		p        store.Profile
		prompt   string
		delivery store.PromptDelivery
	}{
		{withArg, "go", store.PromptArgument},
		{withArg, "", store.PromptArgument},
		{noArg, "go", store.PromptTyped},
		{noArg, "", store.PromptNone},
		{typed, "go", store.PromptTyped},
		{typed, "", store.PromptTyped},
		{none, "go", store.PromptTyped},
		{none, "", store.PromptNone},
	} {
		_, got := firstPrompt(LaunchSpec{SessionID: "ses_t", Profile: c.p, Prompt: c.prompt})
		if got != c.delivery {
			t.Errorf("profile %s (%s) with prompt %q: delivered %s, want %s", c.p.ID, c.p.Prompt, c.prompt, got, c.delivery)
		}
	}
}
