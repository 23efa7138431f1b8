"""A plugin written in its own package, depending on Greenroom BY VERSION, builds with GreenroomPluginKit and
loads into the host.

SwiftPM refuses a dependency taken by version whose targets carry `unsafeFlags`, so Package.swift must carry
none (the release build's flags live in the Makefile). The fixture commits this checkout's files (tracked, and
untracked but not ignored) to a temporary git repository tagged 0.1.0, writes a one-class plugin package that
depends on it with `from: "0.1.0"`, builds it with `swift build`, and the test loads the built library with
`serve --plugin`.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
VERSION = "0.1.0"
#: The dependency's directory name is its package identity (what `.product(package:)` names).
IDENTITY = "greenroom"
PRODUCT = "SDKGreetingPlugin"
#: Resolving and building the dependency's plugin targets on 2 busy cores.
BUILD_TIMEOUT = 600

PLUGIN_MANIFEST = f"""// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "sdk-greeting-plugin",
    products: [
        .library(name: "{PRODUCT}", type: .dynamic, targets: ["{PRODUCT}"]),
    ],
    dependencies: [
        .package(url: "file://{{repo}}", from: "{VERSION}"),
    ],
    targets: [
        .target(
            name: "{PRODUCT}",
            dependencies: [.product(name: "GreenroomPluginKit", package: "{IDENTITY}")]),
    ]
)
"""

PLUGIN_SOURCE = """import GreenroomPluginKit

/// One container class: `configure` greets the name in its data.
final class Greeting: PluginContainer {
    let containerID: String
    private var calls = 0

    init(containerID: String, host: PluginHost) {
        self.containerID = containerID
    }

    func run(_ hook: Hook, input: JSONObject) throws -> JSONValue? {
        switch hook {
        case .configure:
            calls += 1
            let name = input["data"]?["name"]?.stringValue ?? "world"
            return ["greeting": .string("hello, \\(name)"), "container": .string(containerID), "calls": .int(calls)]
        default:
            return nil
        }
    }

    var memoryBytes: Int { 64 }
}

@_cdecl("greenroom_plugin_init")
public func greenroomPluginInit(api: PluginKit.API, host: PluginKit.HostPointer) -> Int32 {
    PluginKit.register(api, host, plugin: "sdkgreeting", version: "0.0.1", classes: [Greeting.self])
}
"""


def find_swift() -> str | None:
    """As scripts/swift.sh: the `swift` on PATH, else the usual unpacked toolchains."""
    found = shutil.which("swift")
    if found:
        return found
    for d in ("/opt/swift/usr/bin", "/usr/share/swift/usr/bin"):
        if os.access(f"{d}/swift", os.X_OK):
            return f"{d}/swift"
    return None


def run(cmd, cwd, timeout=60):
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
    return done.stdout


def make_versioned_repo(dest: Path) -> None:
    """This checkout's files (tracked, and untracked but not ignored; never .build/ or .venv/) committed in a
    fresh repository at `dest`, tagged VERSION."""
    listed = run(["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO)
    dest.mkdir()
    for rel in sorted(set(filter(None, listed.split("\0")))):
        if rel.split("/", 1)[0] in (".build", ".venv"):
            continue
        src = REPO / rel
        if not os.path.lexists(src):  # tracked but deleted in the work tree
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)  # the Static/web links stay links
    git = ["git", "-c", "user.name=Greenroom Tests", "-c", "user.email=tests@greenroom.invalid",
           "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main"]
    run(git + ["init", "-q"], cwd=dest)
    run(git + ["add", "-A", "-f"], cwd=dest)
    run(git + ["commit", "-q", "-m", f"greenroom {VERSION}"], cwd=dest)
    run(git + ["tag", VERSION], cwd=dest)


@pytest.fixture(scope="module")
def sdk_plugin():
    """The built plugin library (the path of its .so)."""
    swift = find_swift()
    if swift is None:
        pytest.skip("Swift was found neither on PATH nor in /opt/swift/usr/bin: cannot build a plugin package")
    work = Path(tempfile.mkdtemp(prefix="grsdk-"))
    try:
        repo = work / IDENTITY
        make_versioned_repo(repo)
        pkg = work / "plugin"
        (pkg / "Sources" / PRODUCT).mkdir(parents=True)
        (pkg / "Package.swift").write_text(PLUGIN_MANIFEST.replace("{repo}", str(repo)))
        (pkg / "Sources" / PRODUCT / "Greeting.swift").write_text(PLUGIN_SOURCE)
        scratch = work / ".build"
        # The repository cache, the fingerprints (a new commit under the same tag each run) and the
        # configuration stay in the temp dir, not the user's ~/.swiftpm.
        cmd = [swift, "build", "--product", PRODUCT, "--scratch-path", str(scratch),
               "--cache-path", str(work / "cache"), "--security-path", str(work / "security"),
               "--config-path", str(work / "config")]
        nice = shutil.which("nice")
        if nice:
            cmd = [nice, "-n", "10"] + cmd
        proc = subprocess.Popen(cmd, cwd=pkg, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # swift-build and its compilers too
            out, _ = proc.communicate()
            pytest.fail(f"`swift build` of the plugin package took over {BUILD_TIMEOUT} s:\n{out[-4000:]}")
        assert proc.returncode == 0, (
            f"a package depending on Greenroom by version ({VERSION}) failed to build "
            f"(exit {proc.returncode}):\n{out[-6000:]}")
        built = scratch / "debug" / f"lib{PRODUCT}.so"
        if not built.is_file():
            found = sorted(scratch.glob(f"*/lib{PRODUCT}.so"))
            assert found, f"lib{PRODUCT}.so not found under {scratch}:\n{out[-2000:]}"
            built = found[0]
        yield str(built)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_package_swift_carries_no_unsafe_flags():
    manifest = (REPO / "Package.swift").read_text()
    uses = [line.strip() for line in manifest.splitlines() if re.search(r"\bunsafeFlags\s*\(", line)]
    assert not uses, (
        "Package.swift uses unsafeFlags: SwiftPM refuses a package that carries them when it is depended on "
        "by version, so no plugin package could build against GreenroomPluginKit (put release flags in the "
        f"Makefile instead): {uses}")


def test_a_plugin_package_depending_on_greenroom_by_version_loads(sdk_plugin, start_host):
    host = start_host("--clock", "virtual", "--plugin", sdk_plugin)
    c = host.connect()
    classes = {k["name"]: k for k in c.result("classes.list")["classes"]}
    assert classes["Greeting"]["plugin"] == "sdkgreeting" and classes["Greeting"]["scripted"] is False, classes
    plugins = {p["name"]: p for p in c.result("host.info")["plugins"]}
    assert plugins["sdkgreeting"]["classes"] == ["Greeting"], plugins
    assert plugins["sdkgreeting"]["path"].endswith(f"lib{PRODUCT}.so"), plugins
    container = c.result("container.create", {"class": "Greeting"})["container"]
    out = c.result("container.configure", {"container": container, "data": {"name": "room"}})["output"]
    assert out == {"greeting": "hello, room", "container": container, "calls": 1}, out
    assert c.result("container.info", {"container": container})["class"] == "Greeting"
