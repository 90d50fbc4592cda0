import type { Plan } from '@docqa/db';

/** Chatbot requests per key per hour, by plan (spec "Limits"); a plan without an entry has no chatbot. */
export const CHATBOT_HOURLY_LIMITS: Readonly<Partial<Record<Plan, number>>> = Object.freeze({
  pro: 50,
  business: 100,
});

export const CHATBOT_RATE_WINDOW_SECONDS = 3600;

export function chatbotLimitOf(plan: Plan): number | null {
  return CHATBOT_HOURLY_LIMITS[plan] ?? null;
}
