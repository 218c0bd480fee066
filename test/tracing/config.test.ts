/** The tracing settings read from the environment: the OTLP endpoint variables as the OpenTelemetry spec defines them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';

test('no OTLP endpoint: tracing is off', () => {
  assert.equal(loadConfig({}).tracing, undefined);
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }).tracing, undefined);
});

test('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended; the traces endpoint is taken as it is and wins', () => {
  assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, { tracesUrl: 'http://collector:4318/v1/traces', serviceName: 'ai-gateway' });
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/otlp/' }).tracing?.tracesUrl, 'https://collector.example/otlp/v1/traces');
  assert.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom' }).tracing?.tracesUrl,
    'http://traces:9999/custom',
  );
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'edge-gateway' }).tracing?.serviceName, 'edge-gateway');
});

test('OTEL_SDK_DISABLED=true turns tracing off; a malformed endpoint stops the start with the variable named', () => {
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }), /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
});
