import { Injectable } from '@nestjs/common';

/** A trivial activity that proves the worker wiring (bundle + registration) end to end. */
@Injectable()
export class DiagnosticsActivities {
  async echo(message: string): Promise<string> {
    return `echo: ${message}`;
  }
}
