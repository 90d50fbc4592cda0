import { MigrationInterface, QueryRunner } from 'typeorm';

/** Base schema of DESIGN.md "Data". Every tenant-owned row carries account_id with ON DELETE CASCADE. */
export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id serial PRIMARY KEY,
        email text NOT NULL,
        name text NOT NULL DEFAULT '',
        password_hash text NOT NULL,
        otp_secret_enc text,
        otp_enabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_lower_uq ON users (lower(email))`);
    await q.query(`
      CREATE TABLE accounts (
        id serial PRIMARY KEY,
        name text NOT NULL,
        personal boolean NOT NULL DEFAULT false,
        owner_id int REFERENCES users(id) ON DELETE SET NULL,
        plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free','pro','business')),
        support_email text,
        chatbot_docsets jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE account_users (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL DEFAULT 'owner',
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, user_id)
      )`);
    await q.query(`CREATE INDEX account_users_user_idx ON account_users (user_id)`);
    await q.query(`
      CREATE TABLE api_tokens (
        id serial PRIMARY KEY,
        user_id int NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        token_enc text NOT NULL,
        token_prefix text NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        scope jsonb,
        last_used_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX api_tokens_user_idx ON api_tokens (user_id)`);
    await q.query(`
      CREATE TABLE chatbot_keys (
        id serial PRIMARY KEY,
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL DEFAULT '',
        key_hash text NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        allowed_origin text,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE rate_limit_windows (
        key text NOT NULL,
        window_start timestamptz NOT NULL,
        count int NOT NULL DEFAULT 0,
        PRIMARY KEY (key, window_start)
      )`);
    await q.query(`
      CREATE TABLE documents (
        id uuid PRIMARY KEY,
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        docset_name text NOT NULL,
        file_name text NOT NULL,
        source_type text NOT NULL CHECK (source_type IN ('S3','SHAREPOINT','GOOGLEDRIVE')),
        source_id text NOT NULL,
        source_path text NOT NULL DEFAULT '',
        source_metadata jsonb NOT NULL DEFAULT '{}',
        etag text,
        content_hash text,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING','INDEXING','COMPLETE','ERROR','CANCELLED')),
        file_type text NOT NULL DEFAULT '',
        size_bytes bigint,
        page_count int,
        chunk_count int,
        error text,
        summary text,
        last_run_id uuid,
        indexed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, docset_name, source_type, source_id)
      )`);
    await q.query(
      `CREATE INDEX documents_account_docset_status_idx ON documents (account_id, docset_name, status)`,
    );
    await q.query(`CREATE INDEX documents_account_created_idx ON documents (account_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE document_pages (
        document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        page_number int NOT NULL,
        text text NOT NULL,
        PRIMARY KEY (document_id, page_number)
      )`);
    await q.query(`
      CREATE TABLE index_runs (
        id uuid PRIMARY KEY,
        account_id int NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        docset_name text NOT NULL,
        workflow_id text NOT NULL,
        source_type text NOT NULL,
        status text NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING','COMPLETED','FAILED','CANCELLED')),
        options jsonb NOT NULL DEFAULT '{}',
        credentials_enc text,
        account_name text,
        summary_model text,
        counters jsonb NOT NULL DEFAULT '{}',
        error text,
        finished_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // At most one open run per docset: the database enforces the 409.
    await q.query(
      `CREATE UNIQUE INDEX index_runs_one_running_uq ON index_runs (account_id, docset_name) WHERE status = 'RUNNING'`,
    );
    await q.query(`
      CREATE TABLE mail_outbox (
        id uuid PRIMARY KEY,
        account_id int REFERENCES accounts(id) ON DELETE SET NULL,
        to_address text NOT NULL,
        reply_to text,
        subject text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING','SENT')),
        attempts int NOT NULL DEFAULT 0,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX mail_outbox_pending_idx ON mail_outbox (next_attempt_at) WHERE status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'mail_outbox',
      'index_runs',
      'document_pages',
      'documents',
      'rate_limit_windows',
      'chatbot_keys',
      'api_tokens',
      'account_users',
      'accounts',
      'users',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
