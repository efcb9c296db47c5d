# The private Wayland desktop (headless sway) refuses to run as root: when the tests run as root, the bridge starts
# sway, its session bus and its apps as this unprivileged user (DBG_DESKTOP_USER, default dbg-desktop).
if [ "$(id -u)" = 0 ] && ! id dbg-desktop >/dev/null 2>&1; then
  echo "==> creating the user dbg-desktop (runs the private Wayland desktop)"
  useradd --system --create-home --shell /usr/sbin/nologin dbg-desktop
fi
