// test/support uses `pg` without @types/pg (the jest build does not type-check); this bench build does.
declare module 'pg' {
  export class Client {
    constructor(config: { connectionString?: string });
    connect(): Promise<void>;
    query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
    end(): Promise<void>;
  }
}
