import Foundation
import Infrastructure

/// Where the browser tests find their tools; `scripts/setup.sh` installs both.
public enum HeadlessBrowser {
  public static let chromium = [
    "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
  ]
  .first { FileManager.default.isExecutableFile(atPath: $0) }

  public static let node = NodeJS.executable

  /// The flags every test's Chromium runs with: headless, a throwaway profile, no sandbox
  /// (tests run as root), no first-run screens.
  public static func flags(profile: String) -> [String] {
    [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--user-data-dir=\(profile)",
    ]
  }

  /// The start of every Node.js script that drives Chromium: reads its launch settings
  /// (`chromium`, `flags`, `page`) from the file named by its first argument, starts
  /// Chromium with the DevTools protocol on a pipe, and defines `send(method, params,
  /// sessionId)`, `events` (every event received), `say(line)` (one JSON line on standard
  /// output) and `until(what, test, describe)` (polls until `test` gives a value, for at most
  /// `page.timeoutMs`).
  public static let devToolsPrelude = #"""
    "use strict";
    const fs = require("fs");
    const { spawn } = require("child_process");
    const launch = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    const settings = launch.page;
    const say = (line) => process.stdout.write(JSON.stringify(line) + "\n");
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

    // Chromium reads DevTools commands on descriptor 3 and answers on 4, each message
    // ending in a NUL byte.
    const chromium = spawn(launch.chromium, launch.flags.concat(["--remote-debugging-pipe", "about:blank"]),
      { stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
    const pending = new Map();
    const events = [];
    let nextID = 0;
    let received = "";
    chromium.stdio[4].on("data", (chunk) => {
      received += chunk.toString();
      let end;
      while ((end = received.indexOf("\0")) >= 0) {
        const message = JSON.parse(received.slice(0, end));
        received = received.slice(end + 1);
        const waiting = message.id !== undefined && pending.get(message.id);
        if (waiting) {
          pending.delete(message.id);
          if (message.error) waiting.reject(new Error(message.error.message));
          else waiting.resolve(message.result);
        } else if (message.method) {
          message.receivedAt = Date.now();
          events.push(message);
        }
      }
    });
    function send(method, params, sessionId) {
      const message = { id: ++nextID, method: method, params: params || {} };
      if (sessionId) message.sessionId = sessionId;
      chromium.stdio[3].write(JSON.stringify(message) + "\0");
      return new Promise((resolve, reject) => pending.set(message.id, { resolve, reject }));
    }
    async function until(what, test, describe) {
      const deadline = Date.now() + settings.timeoutMs;
      for (;;) {
        const value = await test();
        if (value) return value;
        if (Date.now() > deadline) {
          throw new Error("timed out waiting for " + what + (describe ? ": " + describe() : ""));
        }
        await sleep(100);
      }
    }

    """#
}

/// A line a DevTools script writes: every one names its step; `failed` ends the script.
public protocol DevToolsLine: Decodable, Sendable {
  var event: String { get }
}

/// One Node.js script (`HeadlessBrowser.devToolsPrelude` plus its steps) driving a
/// throwaway headless Chromium; its JSON lines are read back as `Line`s.
public final class DevToolsRun<Line: DevToolsLine>: Sendable {
  /// What the script is started with: the test's settings and how to launch Chromium.
  private struct Launch<Page: Encodable>: Encodable {
    var chromium: String
    var flags: [String]
    var page: Page
  }

  private let process: ChildProcess
  private let directory: URL
  private let output: URL

  public init(script: String, page: some Encodable) throws {
    guard let node = HeadlessBrowser.node else {
      throw ChildProcess.SpawnFailed(executable: "node", code: ENOENT)
    }
    guard let chromium = HeadlessBrowser.chromium else {
      throw ChildProcess.SpawnFailed(executable: "chromium", code: ENOENT)
    }
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "browser-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let scriptFile = directory.appendingPathComponent("driver.js")
    let settings = directory.appendingPathComponent("settings.json")
    output = directory.appendingPathComponent("steps.jsonl")
    try script.write(to: scriptFile, atomically: true, encoding: .utf8)
    let launch = Launch(
      chromium: chromium,
      flags: HeadlessBrowser.flags(profile: directory.appendingPathComponent("profile").path),
      page: page)
    try Data(WireCoding.encode(launch)).write(to: settings)
    process = try ChildProcess(
      executable: node, arguments: [scriptFile.path, settings.path],
      environment: ProcessInfo.processInfo.environment, output: output.path,
      errors: directory.appendingPathComponent("errors.txt").path)
  }

  /// The lines written so far.
  public func lines() -> [Line] {
    let data = FileManager.default.contents(atPath: output.path) ?? Data()
    return data.split(separator: UInt8(ascii: "\n")).compactMap {
      try? WireCoding.decode(Line.self, from: Array($0))
    }
  }

  /// Waits for the line of `event` (or the script's failure) and returns it.
  public func wait(for event: String, timeout: Duration = .seconds(60)) async throws -> Line {
    var found: Line?
    try await eventually(timeout: timeout, "the browser's \(event) step") {
      found = lines().first { $0.event == event || $0.event == "failed" }
      return found != nil
    }
    return found!
  }

  /// What the script wrote on standard error (Node's own errors).
  public func errors() -> String {
    let data = FileManager.default.contents(
      atPath: directory.appendingPathComponent("errors.txt").path)
    return String(decoding: data ?? Data(), as: UTF8.self)
  }

  public func exitStatus() async -> Int32 { await process.exitStatus() }

  /// Stops the script (its Chromium exits when the DevTools pipe closes) and removes its
  /// files.
  public func stop() {
    process.send(SIGKILL)
    try? FileManager.default.removeItem(at: directory)
  }
}
