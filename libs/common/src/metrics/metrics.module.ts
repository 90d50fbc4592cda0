import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { MetricsConfig } from '../config/app-config';
import { METRICS_CONFIG } from '../config/config.module';
import { EventLoopWatch, watchEventLoop } from './event-loop-watch';
import { docqaMetrics } from './metrics';
import { HealthReporter, MetricsServer, startMetricsServer } from './metrics-server';

let stallWatchRunning = false;

/**
 * Log "event loop stalled" when a process answered nothing for longer than this, with the share
 * of the span its own code held the loop (docs/adr/0036-event-loop-stays-responsive.md).
 */
export const EVENT_LOOP_STALL_WARN_MS = 1000;

/**
 * Starts the Prometheus endpoint (METRICS_PORT on METRICS_HOST, loopback unless configured) with
 * the app, stops it with the app. Not BIND_HOST: the API may face the world, the metrics must not.
 * Also watches the process's event loop and logs every stall over EVENT_LOOP_STALL_WARN_MS: a
 * service that answers nothing for seconds should say so in its own log.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: MetricsServer;
  private healthReporter?: HealthReporter;
  private eventLoopWatch?: EventLoopWatch;
  readonly metrics = docqaMetrics;

  /** Serves the operator's health view on this port (`GET /health`); the api sets it. */
  setHealthReporter(reporter: HealthReporter | undefined): void {
    this.healthReporter = reporter;
  }

  constructor(@Inject(METRICS_CONFIG) private readonly cfg: MetricsConfig) {}

  /** Port the endpoint listens on, or undefined when METRICS_ENABLED=false. */
  get port(): number | undefined {
    return this.server?.port;
  }

  /** Address the endpoint is bound to, or undefined when METRICS_ENABLED=false. */
  get host(): string | undefined {
    return this.server?.host;
  }

  async onApplicationBootstrap(): Promise<void> {
    // One watch per process (the standalone service holds the api and the worker in one).
    if (!stallWatchRunning) {
      stallWatchRunning = true;
      this.eventLoopWatch = watchEventLoop(EVENT_LOOP_STALL_WARN_MS, ({ ms, busy }) =>
        this.logger.warn(
          `event loop stalled for ${ms} ms (this process's code held it ${Math.round(busy * 100)}% of that span; ` +
            'near 100%: a long synchronous call here, near 0%: the cores were busy elsewhere)',
        ),
      );
    }
    if (!this.cfg.enabled) return;
    docqaMetrics.collectDefaults();
    this.server = await startMetricsServer({
      host: this.cfg.host,
      port: this.cfg.port,
      metrics: docqaMetrics,
      health: () => this.healthReporter,
    });
    this.logger.log(`Prometheus metrics on http://${this.server.host}:${this.server.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.eventLoopWatch) {
      this.eventLoopWatch.stop();
      this.eventLoopWatch = undefined;
      stallWatchRunning = false;
    }
    await this.server?.close();
    this.server = undefined;
  }
}

/** Global: the api and the worker import it once; `MetricsService.metrics` is `docqaMetrics`. */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
