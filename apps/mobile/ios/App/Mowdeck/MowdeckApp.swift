// The app the Notification Service Extension ships in. For now it does the one thing pushes
// need from it: it asks to show notifications and registers with APNs. Sending the device
// token to the owner's server (`POST /api/v1/notifications/apns-devices`) and the inbox are
// the app's own work, not this file's (docs/mobile-apps.md).
import SwiftUI
import UIKit
import UserNotifications

@main
struct MowdeckApp: App {
  @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

  var body: some Scene {
    WindowGroup {
      Text("Mowdeck")
    }
  }
}

@MainActor
final class AppDelegate: NSObject, UIApplicationDelegate {
  func application(
    _ application: UIApplication,
    didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
  ) -> Bool {
    Task { await Self.registerForPushes() }
    return true
  }

  private static func registerForPushes() async {
    let center = UNUserNotificationCenter.current()
    let granted = (try? await center.requestAuthorization(options: [.alert, .sound, .badge])) ?? false
    if granted {
      UIApplication.shared.registerForRemoteNotifications()
    }
  }

  func application(
    _ application: UIApplication,
    didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data
  ) {
    let token = deviceToken.map { String(format: "%02x", $0) }.joined()
    print("APNs device token: \(token)")
  }
}
