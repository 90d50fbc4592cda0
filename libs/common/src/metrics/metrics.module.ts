import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { docqaMetrics } from './metrics';
import { HealthReporter, MetricsServer, startMetricsServer } from './metrics-server';

/**
 * Starts the Prometheus endpoint (METRICS_PORT on METRICS_HOST, loopback unless configured) with
 * the app, stops it with the app. Not BIND_HOST: the API may face the world, the metrics must not.
 */
@Injectable()
export class MetricsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: MetricsServer;
  private healthReporter?: HealthReporter;
  readonly metrics = docqaMetrics;

  /** Serves the operator's health view on this port (`GET /health`); the api sets it. */
  setHealthReporter(reporter: HealthReporter | undefined): void {
    this.healthReporter = reporter;
  }

  constructor(@Inject(APP_CONFIG) private readonly cfg: AppConfig) {}

  /** Port the endpoint listens on, or undefined when METRICS_ENABLED=false. */
  get port(): number | undefined {
    return this.server?.port;
  }

  /** Address the endpoint is bound to, or undefined when METRICS_ENABLED=false. */
  get host(): string | undefined {
    return this.server?.host;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.cfg.metricsEnabled) return;
    docqaMetrics.collectDefaults();
    this.server = await startMetricsServer({
      host: this.cfg.metricsHost,
      port: this.cfg.metricsPort,
      metrics: docqaMetrics,
      health: () => this.healthReporter,
    });
    this.logger.log(`Prometheus metrics on http://${this.server.host}:${this.server.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.server?.close();
    this.server = undefined;
  }
}

/** Global: the api and the worker import it once; `MetricsService.metrics` is `docqaMetrics`. */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
