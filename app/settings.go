package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-dev/switchboard/app/daemon"
	"github.com/switchboard-dev/switchboard/mcpserver"
	"github.com/switchboard-dev/switchboard/profile"
	"github.com/switchboard-dev/switchboard/store"
	"github.com/switchboard-dev/switchboard/supervisor"
)

// Settings window labels, also what the tests tap.
const (
	titleSettings       = "Switchboard — Settings"
	labelSettings       = "Settings…"
	labelAddRepo        = "Add repository…"
	labelAddProfile     = "Add profile…"
	labelEditProfile    = "Edit…"
	labelRemoveProfile  = "Remove"
	labelSaveConnection = "Save"
	labelCreateToken    = "Create token…"
	labelRevokeToken    = "Revoke"
	labelRotateClient   = "Rotate client token"
)

// settingsWindow holds the repositories, the agent profiles, the tokens,
// what the app listens on and the team the store is shared with. Each tab re-reads when the registry says
// something changed.
type settingsWindow struct {
	g    *gui
	win  fyne.Window
	tabs *container.AppTabs

	repos    []store.Repository
	profiles []supervisor.ProfileInfo
	tokens   mcpserver.TokenList

	repoList    *widget.List
	repoSel     string         // the selected repository's id: selection is identity
	repoConfine *widget.Button // lets the selected repository's agents run unconfined, or not
	repoRename  *widget.Button
	repoRemove  *widget.Button
	profileList *widget.List
	tokenList   *widget.List
	profileSel  int
	tokenSel    int
	status      *widget.Label
	worktrees   *worktreesPane // the Worktrees tab (settings_worktrees.go)
	team        *teamPane      // the Team tab (settings_team.go)
	startup     *startupPane   // start at login, on the Connection tab (startup.go)

	stopRefresh chan struct{}
}

// showSettings opens the Settings window, or brings it forward.
func (g *gui) showSettings() {
	if g.settings == nil {
		g.settings = newSettingsWindow(g)
	}
	g.settings.win.Show()
	g.settings.win.RequestFocus()
}

func newSettingsWindow(g *gui) *settingsWindow {
	w := &settingsWindow{g: g, win: g.app.NewWindow(titleSettings), profileSel: -1, tokenSel: -1, stopRefresh: make(chan struct{})}
	w.status = widget.NewLabel("")
	w.status.Wrapping = fyne.TextWrapWord

	w.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Repositories", theme.FolderIcon(), w.reposTab()),
		container.NewTabItemWithIcon(labelWorktreesTab, theme.StorageIcon(), w.worktreesTab()),
		container.NewTabItemWithIcon("Agent profiles", theme.ComputerIcon(), w.profilesTab()),
		container.NewTabItemWithIcon("Tokens", theme.AccountIcon(), w.tokensTab()),
		container.NewTabItemWithIcon("Connection", theme.InfoIcon(), w.connectionTab()),
		container.NewTabItemWithIcon(labelSandboxTab, theme.VisibilityOffIcon(), w.sandboxTab()),
		container.NewTabItemWithIcon(labelTeamTab, theme.GridIcon(), w.teamTab()),
	)
	w.tabs.OnSelected = func(t *container.TabItem) {
		w.worktrees.setShown(t.Text == labelWorktreesTab)
		w.team.setShown(t.Text == labelTeamTab)
	}
	w.win.SetContent(container.NewBorder(nil, w.status, nil, nil, w.tabs))
	g.place(w.win, windowSettings, func() {
		close(w.stopRefresh)
		g.settings = nil
	})
	// Subscribed before the first read, so a change in between is not missed.
	changed := g.core.Registry().Changed()
	w.reload()
	go w.refreshLoop(changed)
	return w
}

func (w *settingsWindow) refreshLoop(changed <-chan struct{}) {
	for {
		select {
		case <-w.stopRefresh:
			return
		case <-changed:
		}
		changed = w.g.core.Registry().Changed()
		// A burst of agent calls must not become a burst of reads.
		select {
		case <-w.stopRefresh:
			return
		case <-time.After(listRefresh):
		}
		fyne.Do(w.reload)
	}
}

// reload reads the three lists, and the worktrees and the team's status
// when their tab is shown.
func (w *settingsWindow) reload() {
	w.worktrees.changed()
	w.team.changed()
	// Not registry state, but `switchboard autostart` may have changed it meanwhile.
	w.startup.load()
	repos, err := view(w.g, mcpserver.MethodRepositoryList, mcpserver.NoArgs{})
	if err != nil {
		w.fail(string(mcpserver.MethodRepositoryList), err)
		return
	}
	profiles, err := view(w.g, mcpserver.MethodProfileList, mcpserver.NoArgs{})
	if err != nil {
		w.fail(string(mcpserver.MethodProfileList), err)
		return
	}
	tokens, err := view(w.g, mcpserver.MethodTokenList, mcpserver.TokenListArgs{})
	if err != nil {
		w.fail(string(mcpserver.MethodTokenList), err)
		return
	}
	w.repos, w.profiles, w.tokens = repos.Repositories, profiles.Profiles, tokens
	w.repoList.Refresh()
	w.reselectRepo()
	w.profileList.Refresh()
	w.tokenList.Refresh()
}

// note shows an outcome in the status line, for a while (expire).
func (w *settingsWindow) note(text string) {
	w.status.SetText(text)
	expire(w.status, text)
}

func (w *settingsWindow) fail(what string, err error) {
	w.g.log.Warn("settings", "call", what, "err", err)
	w.status.SetText(what + ": " + err.Error())
}

// twoLines is a list row: a bold first line and a quieter second one.
func twoLines() fyne.CanvasObject {
	title := widget.NewLabelWithStyle("title", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	sub := widget.NewLabel("detail")
	sub.Truncation = fyne.TextTruncateEllipsis
	sub.SizeName = theme.SizeNameCaptionText
	// Labels pad themselves; stacked in a plain VBox the two lines drift
	// apart. A negative spacer pulls the second up under the first.
	return container.New(layout.NewCustomPaddedVBoxLayout(-theme.Padding()*2), title, sub)
}

func setTwoLines(o fyne.CanvasObject, title, sub string) {
	box := o.(*fyne.Container)
	box.Objects[0].(*widget.Label).SetText(title)
	box.Objects[1].(*widget.Label).SetText(sub)
}

func (w *settingsWindow) profilesTab() fyne.CanvasObject {
	w.profileList = widget.NewList(
		func() int { return len(w.profiles) },
		twoLines,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			p := w.profiles[i]
			title := p.Name
			switch {
			case p.Edited:
				title += "  (edited built-in)"
			case !p.Builtin:
				title += "  (yours)"
			}
			where := "not installed: " + p.Command + " is not on PATH"
			if p.Available {
				where = p.Path
			}
			setTwoLines(o, title, where+"  ·  prompt "+string(p.Prompt))
		})
	w.profileList.OnSelected = func(i widget.ListItemID) { w.profileSel = i }
	edit := widget.NewButtonWithIcon(labelEditProfile, theme.DocumentCreateIcon(), func() {
		if w.profileSel >= 0 && w.profileSel < len(w.profiles) {
			w.editProfile(w.profiles[w.profileSel].Profile)
		}
	})
	add := widget.NewButtonWithIcon(labelAddProfile, theme.ContentAddIcon(), func() {
		w.editProfile(profile.Profile{Prompt: profile.PromptTyped})
	})
	remove := widget.NewButtonWithIcon(labelRemoveProfile, theme.DeleteIcon(), func() {
		if w.profileSel < 0 || w.profileSel >= len(w.profiles) {
			return
		}
		p := w.profiles[w.profileSel]
		if p.Builtin && !p.Edited {
			w.status.SetText(p.Name + " is built in; edit it instead")
			return
		}
		if _, err := invoke(w.g, mcpserver.MethodProfileDelete, mcpserver.ProfileArgs{ID: p.ID}); err != nil {
			w.fail("remove "+p.ID, err)
			return
		}
		w.reload()
	})
	return container.NewBorder(container.NewHBox(add, edit, remove), nil, nil, nil, w.profileList)
}

// editProfile shows a form for p; saving puts it through profile.put.
func (w *settingsWindow) editProfile(p profile.Profile) {
	id := widget.NewEntry()
	id.SetText(p.ID)
	if p.ID != "" {
		id.Disable()
	}
	name := widget.NewEntry()
	name.SetText(p.Name)
	command := widget.NewEntry()
	command.SetText(p.Command)
	args := widget.NewMultiLineEntry()
	args.SetText(strings.Join(p.Args, "\n"))
	args.SetPlaceHolder("one argument per line, e.g. {prompt}")
	env := widget.NewMultiLineEntry()
	env.SetText(strings.Join(p.Env, "\n"))
	env.SetPlaceHolder("NAME=value, one per line")
	prompt := widget.NewSelect([]string{string(profile.PromptArgument), string(profile.PromptTyped), string(profile.PromptNone)}, nil)
	prompt.SetSelected(string(p.Prompt))
	tokenEnv := widget.NewCheck("also in SWITCHBOARD_MCP_TOKEN", nil)
	tokenEnv.SetChecked(p.TokenEnv)
	mcpCfg := widget.NewSelect([]string{"none", profile.MCPConfigClaude}, nil)
	mcpCfg.SetSelected("none")
	if p.MCPConfig != "" {
		mcpCfg.SetSelected(p.MCPConfig)
	}
	form := []*widget.FormItem{
		widget.NewFormItem("ID", id), widget.NewFormItem("Name", name), widget.NewFormItem("Command", command),
		widget.NewFormItem("Arguments", args), widget.NewFormItem("Environment", env),
		widget.NewFormItem("Bootstrap prompt", prompt), widget.NewFormItem("Token", tokenEnv),
		widget.NewFormItem("MCP config file", mcpCfg),
	}
	d := dialog.NewForm("Agent profile", "Save", "Cancel", form, func(ok bool) {
		if !ok {
			return
		}
		np := profile.Profile{ID: strings.TrimSpace(id.Text), Name: strings.TrimSpace(name.Text), Command: strings.TrimSpace(command.Text),
			Args: lines(args.Text), Env: lines(env.Text), Prompt: profile.PromptDelivery(prompt.Selected), TokenEnv: tokenEnv.Checked, Notes: p.Notes,
			// Not on the form: kept, so editing a built-in keeps its modes.
			Permissions: p.Permissions}
		if mcpCfg.Selected != "none" {
			np.MCPConfig = mcpCfg.Selected
		}
		np.Hooks = p.Hooks // not on the form: an edit keeps the built-in's hooks
		np.Usage = p.Usage // nor this: an edit keeps where the CLI records its usage
		if _, err := invoke(w.g, mcpserver.MethodProfilePut, mcpserver.ProfilePutArgs{Profile: np}); err != nil {
			w.fail("save profile", err)
			return
		}
		w.note("Saved profile " + np.ID)
		w.reload()
	}, w.win)
	d.Resize(fyne.NewSize(620, 560))
	d.Show()
}

// lines splits text into its non-empty lines.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (w *settingsWindow) tokensTab() fyne.CanvasObject {
	w.tokenList = widget.NewList(
		func() int { return len(w.tokens.Tokens) },
		twoLines,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			t := w.tokens.Tokens[i]
			title := t.Label
			if title == "" {
				title = string(t.Kind) + " token"
				if t.SessionID != "" {
					title += " of " + t.SessionID
				}
			}
			if t.KeyID == w.tokens.ClientKeyID {
				title += "  (client token)"
			}
			sub := t.KeyID + "  ·  " + string(t.Kind) + "  ·  created " + t.CreatedAt.Local().Format(time.DateTime)
			if t.LastUsedAt != nil {
				sub += "  ·  used " + t.LastUsedAt.Local().Format(time.DateTime)
			}
			if t.ExpiresAt != nil {
				sub += "  ·  expires " + t.ExpiresAt.Local().Format(time.DateTime)
			}
			setTwoLines(o, title, sub+"  ·  "+w.grantsText(t.Grants))
		})
	w.tokenList.OnSelected = func(i widget.ListItemID) { w.tokenSel = i }
	create := widget.NewButtonWithIcon(labelCreateToken, theme.ContentAddIcon(), w.createToken)
	create.Importance = widget.HighImportance
	revoke := widget.NewButtonWithIcon(labelRevokeToken, theme.DeleteIcon(), func() {
		if w.tokenSel < 0 || w.tokenSel >= len(w.tokens.Tokens) {
			return
		}
		t := w.tokens.Tokens[w.tokenSel]
		dialog.ShowConfirm("Revoke token", "Revoke "+t.KeyID+"? Agents using it are refused from now on.", func(ok bool) {
			if !ok {
				return
			}
			if _, err := invoke(w.g, mcpserver.MethodTokenRevoke, mcpserver.KeyIDArg{KeyID: t.KeyID}); err != nil {
				w.fail("revoke", err)
				return
			}
			w.reload()
		}, w.win)
	})
	rotate := widget.NewButtonWithIcon(labelRotateClient, theme.ViewRefreshIcon(), func() {
		dialog.ShowConfirm("Rotate the client token", "Agents started by hand with the current client token will be refused until they get the new one.", func(ok bool) {
			if !ok {
				return
			}
			if _, err := invoke(w.g, mcpserver.MethodTokenRotate, mcpserver.OptionalKeyIDArg{}); err != nil {
				w.fail("rotate", err)
				return
			}
			w.note("The client token was rotated; the tray copies the new one.")
			w.reload()
		}, w.win)
	})
	return container.NewBorder(container.NewHBox(create, revoke, layout.NewSpacer(), rotate), nil, nil, nil, w.tokenList)
}

// grantsText says what grants allow, grouped by where, with repositories
// by name: "status:read work:read on switchboard". Each capability with its
// repository ids did not fit the line.
func (w *settingsWindow) grantsText(grants []store.Grant) string {
	var scopes []string
	caps := map[string][]string{}
	for _, gr := range grants {
		scope := strings.Join(gr.Repositories, ",")
		if _, ok := caps[scope]; !ok {
			scopes = append(scopes, scope)
		}
		caps[scope] = append(caps[scope], string(gr.Capability))
	}
	var agent []string
	for _, c := range store.AgentCapabilities() {
		agent = append(agent, string(c))
	}
	var parts []string
	for _, scope := range scopes {
		what := strings.Join(caps[scope], " ")
		if c := slices.Sorted(slices.Values(caps[scope])); slices.Equal(c, slices.Sorted(slices.Values(agent))) {
			what = "every agent capability"
		}
		var names []string
		for _, id := range strings.Split(scope, ",") {
			names = append(names, w.repoName(id))
		}
		parts = append(parts, what+" on "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// repoName names a repository for a person.
func (w *settingsWindow) repoName(id string) string {
	if id == store.AllRepositories {
		return "all repositories"
	}
	for _, r := range w.repos {
		if r.ID == id {
			return r.Name
		}
	}
	return id
}

// createToken asks for a label, capabilities, a repository and a lifetime,
// mints the token and shows its secret once.
func (w *settingsWindow) createToken() {
	label := widget.NewEntry()
	label.SetPlaceHolder("what it is for")
	var capNames []string
	for _, c := range store.AgentCapabilities() {
		capNames = append(capNames, string(c))
	}
	// Least capability by default: reading status, on one repository,
	// for 30 days. More is a choice the person makes, box by box.
	caps := widget.NewCheckGroup(capNames, nil)
	caps.SetSelected([]string{string(store.CapStatusRead)})
	repoNames := []string{"all repositories"}
	for _, r := range w.repos {
		repoNames = append(repoNames, r.Name+" ("+r.ID+")")
	}
	repo := widget.NewSelect(repoNames, nil)
	repo.SetSelectedIndex(min(1, len(w.repos)))
	expiry := widget.NewSelect([]string{"never", "1 hour", "1 day", "30 days"}, nil)
	expiry.SetSelected("30 days")
	form := []*widget.FormItem{
		widget.NewFormItem("Label", label), widget.NewFormItem("Capabilities", caps),
		widget.NewFormItem("Repository", repo), widget.NewFormItem("Expires", expiry),
	}
	d := dialog.NewForm("Create token", "Create", "Cancel", form, func(ok bool) {
		if !ok {
			return
		}
		scope := []string{store.AllRepositories}
		if i := repo.SelectedIndex(); i > 0 {
			scope = []string{w.repos[i-1].ID}
		}
		var grants []store.Grant
		for _, c := range caps.Selected {
			grants = append(grants, store.Grant{Capability: store.Capability(c), Repositories: scope})
		}
		secs := map[string]int64{"1 hour": 3600, "1 day": 86400, "30 days": 30 * 86400}[expiry.Selected]
		out, err := invoke(w.g, mcpserver.MethodTokenCreate, mcpserver.TokenCreateArgs{Label: label.Text, Grants: grants, ExpiresInSeconds: secs})
		if err != nil {
			w.fail("create token", err)
			return
		}
		w.showSecret(out)
		w.reload()
	}, w.win)
	d.Resize(fyne.NewSize(560, 520))
	d.Show()
}

// showSecret shows a new token once, with a copy button: it is stored
// nowhere in the clear.
func (w *settingsWindow) showSecret(t mcpserver.TokenCreated) {
	secret := widget.NewEntry()
	secret.SetText(t.Secret)
	var copyBtn *widget.Button
	copyBtn = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		w.g.app.Clipboard().SetContent(t.Secret)
		copyBtn.SetText("Copied")
		copyBtn.SetIcon(theme.ConfirmIcon())
	})
	msg := widget.NewLabel(fmt.Sprintf("Token %s created. Copy it now: Switchboard keeps only its hash.", t.Token.KeyID))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("New token", "Done", container.NewVBox(msg, container.NewBorder(nil, nil, nil, copyBtn, secret)), w.win)
	d.Resize(fyne.NewSize(640, 200))
	d.Show()
}

// connectionTab shows the endpoint and keyring, and edits the listen
// address and browser origins kept in the database (connection.put): the
// origins apply to the next request, the address from the next start.
func (w *settingsWindow) connectionTab() fyne.CanvasObject {
	listen, from := w.g.core.Listen()
	ep := w.g.core.Endpoint()
	switch {
	case listen.Off:
		ep = "off"
	case ep == "":
		ep = "not listening"
	}
	switch from {
	case daemon.ListenFromFlag:
		ep += " (address from --mcp-http-addr)"
	case daemon.ListenFromSettings:
		ep += " (address saved here)"
	}
	endpoint := widget.NewLabel(ep)
	endpoint.Selectable = true
	endpoint.Wrapping = fyne.TextWrapWord
	keyring := widget.NewLabel(w.g.core.KeyringState())
	keyring.Wrapping = fyne.TextWrapWord

	saved, err := view(w.g, mcpserver.MethodConnectionGet, mcpserver.NoArgs{})
	if err != nil {
		w.g.log.Warn("settings: connection", "err", err)
	}
	addr := widget.NewEntry()
	addr.SetPlaceHolder("default")
	addr.SetText(saved.ListenAddr)
	origins := widget.NewMultiLineEntry()
	origins.SetPlaceHolder("https://tools.example (one per line)")
	origins.SetText(strings.Join(saved.AllowOrigins, "\n"))
	origins.SetMinRowsVisible(3)
	// The form's hints are one line each; what takes more wraps below.
	notes := []string{"The listen address is used from the next start: a port, a loopback host:port, or off " +
		"(empty: loopback, on the port of the last run). The origins are browser pages allowed to call the endpoint " +
		"besides loopback ones, from the next request."}
	if from == daemon.ListenFromFlag {
		notes = append(notes, "--mcp-http-addr (or SWITCHBOARD_MCP_HTTP_ADDR) sets this run's address; "+
			"the one saved here is used when Switchboard starts without it.")
	}
	if o := w.g.core.AllowOrigins(); len(o) > 0 {
		notes = append(notes, "Also allowed for this run by --allow-origin: "+strings.Join(o, ", ")+".")
	}
	note := widget.NewLabel(strings.Join(notes, "\n"))
	note.Wrapping = fyne.TextWrapWord
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord
	status.Hide()
	save := widget.NewButtonWithIcon(labelSaveConnection, theme.DocumentSaveIcon(), func() {
		in := mcpserver.ConnectionSettings{ListenAddr: addr.Text, AllowOrigins: strings.Split(origins.Text, "\n")}
		if out, err := invoke(w.g, mcpserver.MethodConnectionPut, in); err != nil {
			status.SetText(refusalText(err))
		} else {
			addr.SetText(out.ListenAddr)
			origins.SetText(strings.Join(out.AllowOrigins, "\n"))
			status.SetText("Saved. The origins apply now; the listen address from the next start.")
		}
		status.Show()
	})
	save.Importance = widget.HighImportance
	w.startup = newStartupPane(w.g, w.win)
	return container.NewVScroll(container.NewVBox(
		widget.NewForm(
			widget.NewFormItem("MCP endpoint", endpoint),
			widget.NewFormItem("Listen address", addr),
			widget.NewFormItem("Browser origins", origins),
			widget.NewFormItem("Keyring", keyring),
		),
		note,
		container.NewHBox(layout.NewSpacer(), save),
		status,
		widget.NewSeparator(),
		w.startup.object(),
	))
}
