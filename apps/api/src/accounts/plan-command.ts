import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AccountPlansModule, AccountPlansService } from '@docqa/accounts';
import { AppConfig, ConfigModule } from '@docqa/common';
import { DbModule } from '@docqa/db';

/**
 * `npm run cli -- plan get|set`: the operator's plan commands, through libs/accounts (the owner of
 * `accounts`). Opens the database only.
 */
export async function runPlanCommand<T>(
  cfg: AppConfig,
  fn: (plans: AccountPlansService) => Promise<T>,
): Promise<T> {
  @Module({ imports: [ConfigModule.forRoot(cfg), DbModule, AccountPlansModule] })
  class PlanCommandModule {}
  const app = await NestFactory.createApplicationContext(PlanCommandModule, {
    logger: ['error', 'warn'],
  });
  try {
    return await fn(app.get(AccountPlansService));
  } finally {
    await app.close();
  }
}
