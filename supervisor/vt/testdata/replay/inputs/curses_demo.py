import curses, time
def main(s):
    curses.start_color(); curses.use_default_colors()
    for i in range(1, 8): curses.init_pair(i, i, -1)
    s.box()
    for i in range(1, 8):
        s.addstr(i, 2, f"colour pair {i} 日本語 ✓", curses.color_pair(i) | (curses.A_BOLD if i % 2 else 0))
    s.addstr(10, 2, "scrolling region below:")
    w = curses.newwin(5, 30, 12, 2); w.scrollok(True)
    for i in range(12): w.addstr(f"scroll {i}\n"); w.refresh()
    s.refresh(); time.sleep(8)
curses.wrapper(main)
