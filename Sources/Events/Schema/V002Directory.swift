import Infrastructure

extension Migration {
  /// Who may see which mower, their phones, and their web sessions (docs/interfaces.md#tables).
  static let v002Directory = Migration(
    version: 2, name: "directory",
    sql: """
      CREATE TABLE users (
        user_id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE mowers (
        mower_id text PRIMARY KEY,
        name text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE grants (
        mower_id text NOT NULL REFERENCES mowers ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (mower_id, user_id)
      );
      CREATE TABLE devices (
        device_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
        token text NOT NULL UNIQUE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        active boolean NOT NULL DEFAULT true,
        registered_at timestamptz NOT NULL DEFAULT now(),
        deactivated_at timestamptz
      );
      CREATE INDEX devices_by_user ON devices (user_id) WHERE active;
      CREATE TABLE sessions (
        token_hash text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz
      );
      """)
}
