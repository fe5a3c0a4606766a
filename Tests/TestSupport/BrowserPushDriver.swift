import Foundation
import Infrastructure

/// A person's browser on the web inbox, driven end to end: headless Chromium opens `/inbox`,
/// clicks "Notify me on this browser" (the page asks for permission, installs the service
/// worker, subscribes and registers the subscription with the server), then receives each
/// push the Web Push double recorded for that subscription in its real service worker, and
/// reports the notifications the browser then shows.
///
/// Two things a test browser cannot do are stood in for, and nothing else: Chromium's
/// `PushManager.subscribe` would ask Google's push service, so the page gets the double's
/// subscription instead (after the same checks: an active service worker and the server's
/// VAPID key); and no push service can reach a test browser, so the double's decrypted
/// message is handed to the service worker through the DevTools protocol
/// (`ServiceWorker.deliverPushMessage`), as the browser does after decrypting.
///
/// The driver is a Node.js script speaking the DevTools protocol over Chromium's
/// `--remote-debugging-pipe`; it writes one JSON line per step to its output file.
public final class BrowserPushDriver: Sendable {
  public struct Settings: Encodable, Sendable {
    public var pageURL: String
    public var origin: String
    /// The server's VAPID public key (base64url): the only key the stand-in subscribes with.
    public var expectedKey: String
    public var subscription: WebPushSandboxHarness.Subscription
    /// The Web Push double's record file, where the decrypted pushes appear.
    public var record: String
    /// How many pushes to deliver before reporting and quitting.
    public var pushes: Int
    public var timeoutMs: Int

    public init(
      pageURL: String, origin: String, expectedKey: String,
      subscription: WebPushSandboxHarness.Subscription, record: String, pushes: Int,
      timeoutMs: Int = 30_000
    ) {
      self.pageURL = pageURL
      self.origin = origin
      self.expectedKey = expectedKey
      self.subscription = subscription
      self.record = record
      self.pushes = pushes
      self.timeoutMs = timeoutMs
    }
  }

  /// What the script is started with: the test's settings and how to launch Chromium.
  private struct Launch: Encodable {
    var chromium: String
    var flags: [String]
    var page: Settings
  }

  /// One step's line.
  public struct Line: Decodable, Sendable {
    public var event: String
    public var status: String?
    public var calls: [SubscribeCall]?
    public var notifications: [Shown]?
    public var error: String?
  }

  public struct SubscribeCall: Decodable, Sendable {
    public var userVisibleOnly: Bool?
    public var key: String
  }

  /// A notification as `getNotifications()` lists it.
  public struct Shown: Decodable, Sendable, Equatable {
    public var title: String
    public var body: String
    public var tag: String
    public var image: String?
    public var silent: Bool?
  }

  private let process: ChildProcess
  private let directory: URL
  private let output: URL

  public init(_ settings: Settings) throws {
    guard let node = HeadlessBrowser.node else {
      throw ChildProcess.SpawnFailed(executable: "node", code: ENOENT)
    }
    guard let chromium = HeadlessBrowser.chromium else {
      throw ChildProcess.SpawnFailed(executable: "chromium", code: ENOENT)
    }
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "browser-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let script = directory.appendingPathComponent("driver.js")
    let configuration = directory.appendingPathComponent("settings.json")
    output = directory.appendingPathComponent("steps.jsonl")
    try Self.script.write(to: script, atomically: true, encoding: .utf8)
    let launch = Launch(
      chromium: chromium,
      flags: HeadlessBrowser.flags(profile: directory.appendingPathComponent("profile").path),
      page: settings)
    try Data(WireCoding.encode(launch)).write(to: configuration)
    process = try ChildProcess(
      executable: node, arguments: [script.path, configuration.path],
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

  /// Waits for the line of `event` (or the driver's failure) and returns it.
  public func wait(for event: String, timeout: Duration = .seconds(60)) async throws -> Line {
    var found: Line?
    try await eventually(timeout: timeout, "the browser's \(event) step") {
      found = lines().first { $0.event == event || $0.event == "failed" }
      return found != nil
    }
    return found!
  }

  /// What the driver wrote on standard error (Node's own errors).
  public func errors() -> String {
    let data = FileManager.default.contents(
      atPath: directory.appendingPathComponent("errors.txt").path)
    return String(decoding: data ?? Data(), as: UTF8.self)
  }

  public func exitStatus() async -> Int32 { await process.exitStatus() }

  /// Stops the driver (its Chromium exits when the DevTools pipe closes) and removes its
  /// files.
  public func stop() {
    process.send(SIGKILL)
    try? FileManager.default.removeItem(at: directory)
  }

  static let script = #"""
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

    // The stand-in for the browser's push service, installed before the page's own script.
    function stub(expectedKey, subscription) {
      window.__subscribeCalls = [];
      PushManager.prototype.subscribe = async function (options) {
        const bytes = new Uint8Array(options.applicationServerKey);
        const key = btoa(String.fromCharCode.apply(null, bytes))
          .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        window.__subscribeCalls.push({ userVisibleOnly: options.userVisibleOnly, key: key });
        const registration = await navigator.serviceWorker.getRegistration("/inbox/");
        if (!registration || !registration.active) {
          throw new DOMException("Subscription failed - no active Service Worker", "AbortError");
        }
        if (key !== expectedKey) {
          throw new DOMException("The provided applicationServerKey is not valid.", "InvalidAccessError");
        }
        return {
          endpoint: subscription.endpoint, expirationTime: null, options: options,
          toJSON: () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys }),
        };
      };
    }

    async function main() {
      await send("Browser.grantPermissions", { origin: settings.origin, permissions: ["notifications"] });
      const { targetId } = await send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await send("Target.attachToTarget", { targetId: targetId, flatten: true });
      // Only the click is a user's gesture: reading the page as one kept Chromium from ever
      // showing a pushed notification.
      const evaluate = async (expression, userGesture) => (await send("Runtime.evaluate",
        { expression: expression, awaitPromise: true, returnByValue: true, userGesture: !!userGesture }, sessionId)).result.value;
      await send("Page.enable", {}, sessionId);
      await send("ServiceWorker.enable", {}, sessionId);
      await send("Page.addScriptToEvaluateOnNewDocument", {
        source: "(" + stub.toString() + ")(" + JSON.stringify(settings.expectedKey) + ", "
          + JSON.stringify(settings.subscription) + ");",
      }, sessionId);
      await send("Page.navigate", { url: settings.pageURL }, sessionId);

      // A person clicks "Notify me on this browser" once the page offers it.
      await until("the page to offer Web Push", () => evaluate(
        "(() => { const b = document.getElementById('subscribe'); return !!b && !b.hidden; })()"));
      const before = await evaluate("document.getElementById('status').textContent");
      await evaluate("document.getElementById('subscribe').click()", true);
      // Done when the button goes (registered) or the page says something new (refused).
      const status = await until("the page to answer the click", () => evaluate(
        "(() => { const text = document.getElementById('status').textContent;"
          + " if (document.getElementById('subscribe').hidden) return text || '(no text)';"
          + " return text && text !== " + JSON.stringify(before) + " && text !== 'No notifications.' ? text : null; })()"));
      say({ event: "subscribed", status: status, calls: await evaluate("window.__subscribeCalls") });

      const registration = await until("the service worker's registration", () => {
        for (const event of events) {
          if (event.method !== "ServiceWorker.workerRegistrationUpdated") continue;
          const found = event.params.registrations.find((r) => !r.isDeleted && r.scopeURL.startsWith(settings.origin));
          if (found) return found;
        }
        return null;
      });
      const listed = "navigator.serviceWorker.getRegistration('/inbox/').then((r) => r.getNotifications())"
        + ".then((all) => all.map((n) => ({ title: n.title, body: n.body, tag: n.tag, image: n.image || null, silent: n.silent })))";

      // Each push the double accepted for this subscription, in the order it came, once.
      const subscriptionID = settings.subscription.endpoint.split("/").pop();
      for (let delivered = 0; delivered < settings.pushes; delivered++) {
        const payload = await until("push " + (delivered + 1), () => {
          const text = fs.existsSync(settings.record) ? fs.readFileSync(settings.record, "utf8") : "";
          const accepted = text.split("\n").filter((line) => line).map((line) => JSON.parse(line))
            .filter((line) => line.subscription === subscriptionID && line.status === 201 && line.payload);
          return accepted.length > delivered ? accepted[delivered].payload : null;
        });
        await send("ServiceWorker.deliverPushMessage",
          { origin: settings.origin, registrationId: registration.registrationId, data: payload }, sessionId);
        let seen = null;
        const shown = await until("the notification of push " + (delivered + 1), async () => {
          seen = await evaluate(listed);
          const expectImage = JSON.parse(payload).image_url || null;
          return seen.length > 0 && seen.some((n) => n.image === expectImage) ? seen : null;
        }, () => JSON.stringify({ registration: registration, seen: seen,
          workers: events.filter((e) => e.method.startsWith("ServiceWorker.")).slice(-6) }));
        say({ event: "push " + (delivered + 1), notifications: shown });
      }
    }

    main().then(() => { chromium.kill(); process.exit(0); },
      (error) => { say({ event: "failed", error: String(error && error.stack || error) }); chromium.kill(); process.exit(1); });
    """#
}
