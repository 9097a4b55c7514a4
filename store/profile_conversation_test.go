package store

import "testing"

func TestProfileConversation(t *testing.T) {
	base := Profile{ID: "x", Name: "X", Command: "x", Prompt: PromptArgument}
	for _, tc := range []struct {
		name       string
		conv       *Conversation
		ok         bool
		makes, can bool
	}{
		{"none", nil, true, false, false},
		{"made and resumed by flags", &Conversation{StartArgs: []string{"--session-id", "{conversation_id}"}, ResumeArgs: []string{"--resume", "{conversation_id}"}}, true, true, true},
		{"found, resumed by a subcommand", &Conversation{ResumePrefix: []string{"resume", "{conversation_id}"}, Find: FindCodex}, true, false, true},
		{"unknown finder", &Conversation{Find: "guess"}, false, false, false},
		{"made and found", &Conversation{StartArgs: []string{"--id={conversation_id}"}, Find: FindCodex}, false, true, false},
		{"unknown placeholder", &Conversation{ResumeArgs: []string{"--resume", "{conversation}"}}, false, false, true},
	} {
		p := base
		p.Conversation = tc.conv
		if err := p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate %v, want ok %v", tc.name, err, tc.ok)
		}
		if got := tc.conv.Makes(); got != tc.makes {
			t.Errorf("%s: Makes %v", tc.name, got)
		}
		if got := tc.conv.CanResume(); got != tc.can {
			t.Errorf("%s: CanResume %v", tc.name, got)
		}
	}
}
