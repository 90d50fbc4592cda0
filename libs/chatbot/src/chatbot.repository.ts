import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { rowsOf, type Plan } from '@docqa/db';

export interface ChatbotKeyRow {
  id: number;
  accountId: number;
  name: string;
  keyPrefix: string;
  allowedOrigin: string | null;
  createdAt: Date;
}

/** A live key joined with its account: everything a chatbot request needs to be checked. */
export interface ChatbotKeyAuthRow extends ChatbotKeyRow {
  keyHash: string;
  plan: Plan;
  supportEmail: string | null;
  chatbotDocsets: string[] | null;
}

export interface ChatbotAccountRow {
  id: number;
  plan: Plan;
  supportEmail: string | null;
  chatbotDocsets: string[] | null;
}

type Raw = Record<string, unknown>;

const keyRow = (r: Raw): ChatbotKeyRow => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  name: String(r.name),
  keyPrefix: String(r.key_prefix),
  allowedOrigin: (r.allowed_origin as string | null) ?? null,
  createdAt: new Date(r.created_at as string),
});

const docsets = (v: unknown): string[] | null =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null;

/**
 * Chatbot keys and the chatbot columns of accounts (the account's docsets: DocsetCatalog). Every method but the key lookup by hash
 * takes the account id and filters on it.
 */
@Injectable()
export class ChatbotRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insertKey(k: {
    accountId: number;
    name: string;
    keyHash: string;
    keyPrefix: string;
    allowedOrigin: string | null;
  }): Promise<ChatbotKeyRow> {
    const rows = rowsOf(
      await this.ds.query(
        `INSERT INTO chatbot_keys (account_id, name, key_hash, key_prefix, allowed_origin)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [k.accountId, k.name, k.keyHash, k.keyPrefix, k.allowedOrigin],
      ),
    );
    return keyRow(rows[0]);
  }

  async listLiveKeys(accountId: number): Promise<ChatbotKeyRow[]> {
    const rows = rowsOf(
      await this.ds.query(
        `SELECT * FROM chatbot_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id`,
        [accountId],
      ),
    );
    return rows.map(keyRow);
  }

  async countLiveKeys(accountId: number): Promise<number> {
    const rows = rowsOf(
      await this.ds.query(
        `SELECT count(*) AS n FROM chatbot_keys WHERE account_id = $1 AND revoked_at IS NULL`,
        [accountId],
      ),
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Ids of every key of the account, revoked ones included (for cleaning up their counters). */
  async allKeyIds(accountId: number): Promise<number[]> {
    const rows = rowsOf(
      await this.ds.query(`SELECT id FROM chatbot_keys WHERE account_id = $1`, [accountId]),
    );
    return rows.map((r) => Number(r.id));
  }

  async updateKey(
    accountId: number,
    id: number,
    patch: { name?: string; allowedOrigin?: string | null },
  ): Promise<ChatbotKeyRow | null> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE chatbot_keys
            SET name = CASE WHEN $3::boolean THEN $4 ELSE name END,
                allowed_origin = CASE WHEN $5::boolean THEN $6 ELSE allowed_origin END
          WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL
          RETURNING *`,
        [
          id,
          accountId,
          patch.name !== undefined,
          patch.name ?? null,
          patch.allowedOrigin !== undefined,
          patch.allowedOrigin ?? null,
        ],
      ),
    );
    return rows[0] ? keyRow(rows[0]) : null;
  }

  async revokeKey(accountId: number, id: number): Promise<boolean> {
    const rows = rowsOf(
      await this.ds.query(
        `UPDATE chatbot_keys SET revoked_at = now()
          WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id`,
        [id, accountId],
      ),
    );
    return rows.length === 1;
  }

  /** The live key with this hash, with its account's plan and chatbot settings. */
  async findLiveKeyByHash(keyHash: string): Promise<ChatbotKeyAuthRow | null> {
    const rows = rowsOf(
      await this.ds.query(
        `SELECT k.*, a.plan, a.support_email, a.chatbot_docsets
           FROM chatbot_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [keyHash],
      ),
    );
    const r = rows[0];
    if (!r) return null;
    return {
      ...keyRow(r),
      keyHash: String(r.key_hash),
      plan: r.plan as Plan,
      supportEmail: (r.support_email as string | null) ?? null,
      chatbotDocsets: docsets(r.chatbot_docsets),
    };
  }

  async getAccount(accountId: number): Promise<ChatbotAccountRow | null> {
    const rows = rowsOf(
      await this.ds.query(`SELECT id, plan, support_email, chatbot_docsets FROM accounts WHERE id = $1`, [
        accountId,
      ]),
    );
    const r = rows[0];
    if (!r) return null;
    return {
      id: Number(r.id),
      plan: r.plan as Plan,
      supportEmail: (r.support_email as string | null) ?? null,
      chatbotDocsets: docsets(r.chatbot_docsets),
    };
  }

  async updateAccountSettings(
    accountId: number,
    patch: { supportEmail?: string | null; docSetNames?: string[] | null },
  ): Promise<void> {
    await this.ds.query(
      `UPDATE accounts
          SET support_email = CASE WHEN $2::boolean THEN $3 ELSE support_email END,
              chatbot_docsets = CASE WHEN $4::boolean THEN $5::jsonb ELSE chatbot_docsets END,
              updated_at = now()
        WHERE id = $1`,
      [
        accountId,
        patch.supportEmail !== undefined,
        patch.supportEmail ?? null,
        patch.docSetNames !== undefined,
        patch.docSetNames ? JSON.stringify(patch.docSetNames) : null,
      ],
    );
  }
}
