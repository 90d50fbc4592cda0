import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppConfig, loadConfig, MailConfig } from './app-config';
import { APP_CONFIG, ConfigModule, MAIL_CONFIG, PublicBaseUrl, SEARCH_CONFIG } from './config.module';

@Injectable()
class MailReader {
  constructor(@Inject(MAIL_CONFIG) readonly mail: MailConfig) {}
}

@Module({ providers: [MailReader] })
class MailModule {}

describe('ConfigModule', () => {
  const moduleFor = async (cfg: AppConfig) =>
    Test.createTestingModule({ imports: [ConfigModule.forRoot(cfg), MailModule] }).compile();

  it('provides the whole configuration and each slice under its own token', async () => {
    const cfg = loadConfig({ MAIL_FROM: 'Support <help@example.com>', SEARCH_READ_TIMEOUT_MS: '1234' });
    const m = await moduleFor(cfg);
    expect(m.get(APP_CONFIG)).toBe(cfg);
    expect(m.get(MailReader).mail).toBe(cfg.mail);
    expect(m.get(MailReader).mail.from).toBe('Support <help@example.com>');
    expect(m.get(SEARCH_CONFIG)).toEqual(expect.objectContaining({ readTimeoutMs: 1234 }));
    await m.close();
  });

  it('PublicBaseUrl: PUBLIC_BASE_URL, else the port the API listens on', async () => {
    const local = await moduleFor(loadConfig({ HTTPS_PORT: '0' }));
    local.get(PublicBaseUrl).listeningOn(40443);
    expect(local.get(PublicBaseUrl).get()).toBe('https://localhost:40443');
    const pub = await moduleFor(loadConfig({ PUBLIC_BASE_URL: 'https://docs.example.com/qa/' }));
    pub.get(PublicBaseUrl).listeningOn(40443);
    expect(pub.get(PublicBaseUrl).get()).toBe('https://docs.example.com/qa');
    await Promise.all([local.close(), pub.close()]);
  });
});
