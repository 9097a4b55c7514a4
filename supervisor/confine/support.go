package confine

// Support is what this machine offers for confining agents, asked of the
// system once at the supervisor's start: each mechanism that cannot be
// used says why, for the sessions' records.
type Support struct {
	// Bwrap is the bubblewrap that ran a trial sandbox; "" when none did,
	// and BwrapWhy says why (not installed, user namespaces refused).
	Bwrap, BwrapWhy string
	// Landlock is the kernel's Landlock ABI, 0 when it has none.
	Landlock int
	// Cgroup is the cgroup v2 folder agents' leaves are made in; "" when
	// none can be, and CgroupWhy says why.
	Cgroup, CgroupWhy string
	// Seatbelt is macOS's sandbox-exec (SeatbeltPath) where it is
	// installed; "" elsewhere.
	Seatbelt string
}
