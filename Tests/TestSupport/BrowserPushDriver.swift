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

  /// One step's line.
  public struct Line: DevToolsLine {
    public var event: String
    public var status: String?
    public var calls: [SubscribeCall]?
    public var notifications: [Shown]?
    /// How many times the push was handed to the service worker before it showed.
    public var handedOver: Int?
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

  private let run: DevToolsRun<Line>

  public init(_ settings: Settings) throws {
    run = try DevToolsRun(script: Self.script, page: settings)
  }

  /// The lines written so far.
  public func lines() -> [Line] { run.lines() }

  /// Waits for the line of `event` (or the driver's failure) and returns it.
  public func wait(for event: String, timeout: Duration = .seconds(60)) async throws -> Line {
    try await run.wait(for: event, timeout: timeout)
  }

  /// What the driver wrote on standard error (Node's own errors).
  public func errors() -> String { run.errors() }

  public func exitStatus() async -> Int32 { await run.exitStatus() }

  /// Stops the driver (its Chromium exits when the DevTools pipe closes) and removes its
  /// files.
  public func stop() { run.stop() }

  static let script =
    HeadlessBrowser.devToolsPrelude + "\n" + #"""
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
          // Chromium drops, without a word, a push handed over in the first moments after the
          // worker activated (while the registration is still being stored: seen once in
          // four runs, 0.3 s after activation). The handler is deterministic, so handing the
          // same message over again can only show what the first would have: up to three
          // times, five seconds apart, each counted in the step's line.
          const expectImage = JSON.parse(payload).image_url || null;
          let seen = null;
          let handedOver = 0;
          let shown = null;
          while (!shown && handedOver < 3) {
            handedOver += 1;
            await send("ServiceWorker.deliverPushMessage",
              { origin: settings.origin, registrationId: registration.registrationId, data: payload }, sessionId);
            const deadline = Date.now() + 5000;
            while (!shown && Date.now() < deadline) {
              seen = await evaluate(listed);
              if (seen.length > 0 && seen.some((n) => n.image === expectImage)) shown = seen;
              else await sleep(100);
            }
          }
          if (!shown) {
            throw new Error("the notification of push " + (delivered + 1) + " was never shown: "
              + JSON.stringify({ seen: seen, workers: events.filter((e) => e.method.startsWith("ServiceWorker."))
                .map((e) => [e.receivedAt, e.method, JSON.stringify(e.params).slice(0, 160)]) }));
          }
          say({ event: "push " + (delivered + 1), notifications: shown, handedOver: handedOver });
        }
      }

      main().then(() => { chromium.kill(); process.exit(0); },
        (error) => { say({ event: "failed", error: String(error && error.stack || error) }); chromium.kill(); process.exit(1); });
      """#
}
