package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-dev/switchboard/store"
)

// The methods of this file, typed with their arguments and results.
const (
	MethodConnectionGet Name[NoArgs, ConnectionSettings]             = "connection.get"
	MethodConnectionPut Name[ConnectionSettings, ConnectionSettings] = "connection.put"
)

// ConnectionSettings are the MCP listener's settings a person keeps in the
// database (Settings ▸ Connection). Flags and environment variables given at
// start win over the saved listen address and add to the saved origins.
type ConnectionSettings struct {
	// ListenAddr is where the listener binds from the next start: "" for
	// the default (loopback, on the port remembered from the last run), a
	// port, a loopback host:port, or "off". Rebinding a running listener
	// would cut off every agent connected to it, so a change waits for the
	// next start.
	ListenAddr string `json:"listen_addr"`
	// AllowOrigins are browser origins accepted besides loopback ones,
	// each scheme://host[:port]. A change applies to the next request.
	AllowOrigins []string `json:"allow_origins"`
}

// Settings keys in the store.
const (
	settingListenAddr   = "mcp_http_addr"
	settingAllowOrigins = "allow_origins"
)

// maxAllowOrigins bounds the saved origins: a list longer than this is a
// mistake, not a configuration.
const maxAllowOrigins = 32

// connectionKey is signalled after connection.put commits.
const connectionKey = "connection"

func (r *Registry) registerSettings() {
	r.Register(Define(MethodConnectionGet, On(Global, store.CapAdmin), Hidden|ReadOnly,
		"The saved listen address and allowed browser origins of the MCP endpoint.",
		func(c *Call, _ NoArgs) (ConnectionSettings, error) {
			return ReadConnection(c.Tx)
		}))
	r.Register(Define(MethodConnectionPut, On(Global, store.CapAdmin), Hidden,
		"Save the listen address (used from the next start) and the allowed browser origins (used at once).",
		func(c *Call, in ConnectionSettings) (ConnectionSettings, error) {
			out, err := normalizeConnection(in)
			if err != nil {
				return ConnectionSettings{}, err
			}
			origins := ""
			if len(out.AllowOrigins) > 0 {
				b, _ := json.Marshal(out.AllowOrigins)
				origins = string(b)
			}
			if err := c.Tx.SetSetting(settingListenAddr, out.ListenAddr); err != nil {
				return ConnectionSettings{}, fmt.Errorf("save listen address: %w", err)
			}
			if err := c.Tx.SetSetting(settingAllowOrigins, origins); err != nil {
				return ConnectionSettings{}, fmt.Errorf("save origins: %w", err)
			}
			r.signalAfter(c, connectionKey)
			return out, nil
		}))
}

// ReadConnection returns the saved connection settings.
func ReadConnection(tx *store.Tx) (ConnectionSettings, error) {
	out := ConnectionSettings{ListenAddr: tx.Setting(settingListenAddr), AllowOrigins: []string{}}
	if v := tx.Setting(settingAllowOrigins); v != "" {
		if err := json.Unmarshal([]byte(v), &out.AllowOrigins); err != nil {
			return ConnectionSettings{}, fmt.Errorf("decode saved origins: %w", err)
		}
	}
	return out, nil
}

// normalizeConnection checks in as the flags are checked and returns it in
// the form stored: the address as typed (trimmed; "off" lower-cased), the
// origins canonical, without duplicates, in the order given.
func normalizeConnection(in ConnectionSettings) (ConnectionSettings, error) {
	out := ConnectionSettings{ListenAddr: strings.TrimSpace(in.ListenAddr), AllowOrigins: []string{}}
	if strings.EqualFold(out.ListenAddr, "off") {
		out.ListenAddr = "off"
	}
	if _, err := ParseListenAddr(out.ListenAddr); err != nil {
		return ConnectionSettings{}, store.Deny(store.CodeInvalidArgument, "%v", err)
	}
	for _, o := range in.AllowOrigins {
		if strings.TrimSpace(o) == "" {
			continue
		}
		canon, err := ParseOrigin(o)
		if err != nil {
			return ConnectionSettings{}, store.Deny(store.CodeInvalidArgument, "%v", err)
		}
		if !slices.Contains(out.AllowOrigins, canon) {
			out.AllowOrigins = append(out.AllowOrigins, canon)
		}
	}
	if len(out.AllowOrigins) > maxAllowOrigins {
		return ConnectionSettings{}, store.Deny(store.CodeInvalidArgument, "%d origins, at most %d allowed", len(out.AllowOrigins), maxAllowOrigins)
	}
	return out, nil
}

// ParseOrigin checks a browser origin, scheme://host[:port] with scheme
// http or https, and returns it as browsers send it: scheme and host in
// lower case, no trailing slash.
func ParseOrigin(s string) (string, error) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("origin %q: want scheme://host[:port], scheme http or https", s)
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host), nil
}

// savedOrigins holds the origins saved in Settings for the front layer,
// re-read only after connection.put has committed since the last read.
type savedOrigins struct {
	mu      sync.Mutex
	loaded  bool
	changed <-chan struct{} // closed by the next connection.put; nil before the first read
	origins []string
}

// allowedOrigin reports whether origin is one of the origins saved in
// Settings.
func (r *Registry) AllowedOrigin(origin string) bool {
	o := &r.origins
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-o.changed:
		o.loaded = false
	default:
	}
	if !o.loaded {
		// Wait on the signal before reading, so a put committing in
		// between is not missed.
		o.changed = r.sig.wait(connectionKey)
		var saved ConnectionSettings
		err := r.db.View(context.Background(), func(tx *store.Tx) (err error) {
			saved, err = ReadConnection(tx)
			return err
		})
		if err != nil {
			r.log.Error("read saved origins", "err", err)
			return false // not loaded: the next request tries again
		}
		o.origins, o.loaded = saved.AllowOrigins, true
	}
	return slices.Contains(o.origins, origin)
}
