/**
 * Generator connectors: the procedural renderer (determinism, references drawn where it says),
 * and the ComfyUI and OpenAI-compatible connectors against fakes of those services.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import {
  ComfyUiConnector,
  DEFAULT_COMFY_WORKFLOW,
  GeneratorError,
  OpenAiImagesConnector,
  ProceduralConnector,
  buildSvg,
  createConnector,
  deterministicPromptId,
  type GenerateRequest,
} from '../../src/generation/connectors/index.ts';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { initTelemetry, shutdownTelemetry, withSpan } from '../../src/telemetry.ts';
import { startFakeComfyUi, type FakeComfyUi } from '../fakes/fake-comfyui.ts';
import { startFakeOpenAiImages, type FakeOpenAi } from '../fakes/fake-openai-images.ts';

const solid = (r: number, g: number, b: number, w = 40, h = 30) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

async function pixel(png: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

function progressRecorder() {
  const seen: number[] = [];
  return { seen, fn: (p: number) => void seen.push(p) };
}

function assertProgress(seen: number[]) {
  assert.ok(seen.length >= 3, `progress reported a few times: ${seen.join(',')}`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `monotonic: ${seen.join(',')}`);
  assert.equal(seen.at(-1), 100);
}

async function rejectsGenerator(p: Promise<unknown>, check: (e: GeneratorError) => void) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof GeneratorError, `expected GeneratorError, got ${String(e)}`);
    check(e);
    return true;
  });
}

describe('procedural renderer', () => {
  const base: GenerateRequest = {
    prompt: 'a red cat in a gold hat',
    seed: 1234,
    width: 256,
    height: 256,
    values: { color: 'red', hat: 'gold', social_pfp: 'blank://placeholder' },
    referenceImages: [],
  };
  const gen = new ProceduralConnector();

  test('same request and seed give byte-identical PNGs; seed and values change the picture', async () => {
    const a = await gen.generate(base, () => {});
    const b = await gen.generate({ ...base, values: { ...base.values } }, () => {});
    assert.equal(a.mimeType, 'image/png');
    assert.ok(a.bytes.equals(b.bytes), 'deterministic');
    const meta = await sharp(a.bytes).metadata();
    assert.equal(meta.format, 'png');
    assert.equal(meta.width, 256);
    assert.equal(meta.height, 256);
    const c = await gen.generate({ ...base, seed: 1235 }, () => {});
    const d = await gen.generate({ ...base, values: { ...base.values, color: 'blue' } }, () => {});
    assert.ok(!a.bytes.equals(c.bytes), 'seed matters');
    assert.ok(!a.bytes.equals(d.bytes), 'values matter');
  });

  test('the values and the prompt are written on the image (SVG text), blanks are not', () => {
    const svg = buildSvg({ ...base, prompt: 'a <bold> & "quoted" cat' }, 256, 256);
    assert.match(svg, /color: red/);
    assert.match(svg, /hat: gold/);
    assert.match(svg, /a &lt;bold&gt; &amp; &quot;quoted&quot; cat/);
    assert.doesNotMatch(svg, /social_pfp/);
    assert.equal(svg, buildSvg({ ...base, prompt: 'a <bold> & "quoted" cat' }, 256, 256));
  });

  test('reference images are composited into tiles; URL-only references get a placeholder tile', async () => {
    const red = await solid(255, 0, 0);
    const blue = await solid(0, 0, 255, 20, 50);
    const req: GenerateRequest = {
      ...base,
      referenceImages: [
        { name: 'ref_image_1', bytes: red },
        { name: 'ref_image_2', bytes: blue },
        { name: 'social_pfp', url: 'https://example.invalid/pfp.png' },
      ],
    };
    const progress = progressRecorder();
    const out = await gen.generate(req, progress.fn);
    assertProgress(progress.seen);
    const tiles = out.meta!.referenceImages as Array<{ name: string; drawn: boolean; left: number; top: number; size: number }>;
    assert.deepEqual(
      tiles.map((t) => [t.name, t.drawn]),
      [
        ['ref_image_1', true],
        ['ref_image_2', true],
        ['social_pfp', false],
      ],
    );
    const centre = (t: (typeof tiles)[number]) => [t.left + Math.floor(t.size / 2), t.top + Math.floor(t.size / 2)] as const;
    assert.deepEqual(await pixel(out.bytes, ...centre(tiles[0]!)), [255, 0, 0]);
    assert.deepEqual(await pixel(out.bytes, ...centre(tiles[1]!)), [0, 0, 255]);
    // Corners of the tile too: the reference covers the whole tile.
    assert.deepEqual(await pixel(out.bytes, tiles[0]!.left + 1, tiles[0]!.top + 1), [255, 0, 0]);
    const [r, g, b] = await pixel(out.bytes, tiles[2]!.left + 2, tiles[2]!.top + 2);
    assert.ok(r === g && g === b, 'placeholder tile is grey');
    const again = await gen.generate(req, () => {});
    assert.ok(out.bytes.equals(again.bytes), 'deterministic with references');
    const noRefs = await gen.generate(base, () => {});
    assert.ok(!out.bytes.equals(noRefs.bytes));
  });

  test('unreadable references, bad sizes and aborts are reported as GeneratorError', async () => {
    await rejectsGenerator(
      gen.generate({ ...base, referenceImages: [{ name: 'ref_image_3', bytes: Buffer.from('nope') }] }, () => {}),
      (e) => {
        assert.equal(e.retryable, false);
        assert.match(e.message, /ref_image_3/);
      },
    );
    await rejectsGenerator(
      gen.generate({ ...base, width: 5000 }, () => {}),
      (e) => assert.match(e.message, /width/),
    );
    const ac = new AbortController();
    ac.abort();
    await rejectsGenerator(
      gen.generate(base, () => {}, ac.signal),
      (e) => assert.match(e.message, /aborted/),
    );
  });
});

describe('ComfyUI connector (against the fake ComfyUI)', () => {
  let fake: FakeComfyUi;
  before(async () => {
    fake = await startFakeComfyUi({ steps: 4, stepDelayMs: 15 });
  });
  after(async () => {
    await fake.close();
  });
  const req = (over: Partial<GenerateRequest> = {}): GenerateRequest => ({
    prompt: 'a $5 red cat',
    seed: 0x00a0b0c0,
    width: 64,
    height: 48,
    values: { color: 'red' },
    referenceImages: [],
    stepId: 'job1-step1',
    ...over,
  });

  test('injects prompt and seed, follows websocket progress, fetches the image', async () => {
    const c = new ComfyUiConnector({ baseUrl: fake.url, clientId: 'client-a', pollIntervalMs: 5000 });
    const progress = progressRecorder();
    const before = fake.posts.length;
    const out = await c.generate(req(), progress.fn);
    assertProgress(progress.seen);
    assert.ok(
      progress.seen.some((p) => p > 10 && p < 90),
      `sampler progress seen: ${progress.seen.join(',')}`,
    );
    assert.equal(fake.posts.length, before + 1);
    const post = fake.posts.at(-1)!;
    assert.equal(post.prompt_id, deterministicPromptId('step:job1-step1:10531008'));
    assert.equal(post.prompt_id, c.promptIdFor(req()));
    assert.equal(post.client_id, 'client-a');
    assert.equal(post.prompt['6']!.inputs.text, 'a $5 red cat');
    assert.equal(post.prompt['3']!.inputs.seed, 0x00a0b0c0);
    assert.equal(post.prompt['5']!.inputs.width, 64);
    assert.equal(out.mimeType, 'image/png');
    const meta = await sharp(out.bytes).metadata();
    assert.deepEqual([meta.width, meta.height], [64, 48]);
    assert.deepEqual(await pixel(out.bytes, 3, 3), [0xc0, 0xb0, 0xa0]); // the fake paints the seed's bytes
    assert.equal(out.meta!.prompt_id, post.prompt_id);
  });

  test('comfyui.execute span: prompt id, instance and host, a child of the job.process that runs it', async () => {
    const exporter = new InMemorySpanExporter();
    initTelemetry({ serviceName: 'test', exporter });
    try {
      const c = new ComfyUiConnector({ baseUrl: fake.url, pollIntervalMs: 5000 });
      const r = req({ stepId: 'traced-step' });
      await withSpan('job.process', { 'job.id': 'j' }, () => c.generate(r, () => {}));
      const [exec] = exporter.getFinishedSpans().filter((s) => s.name === 'comfyui.execute');
      const parent = exporter.getFinishedSpans().find((s) => s.name === 'job.process')!;
      assert.ok(exec, 'comfyui.execute span');
      assert.equal(exec!.attributes['comfyui.prompt_id'], c.promptIdFor(r));
      assert.equal(exec!.attributes['comfyui.instance'], fake.url.replace(/\/+$/, ''));
      assert.equal(exec!.attributes['comfyui.host'], new URL(fake.url).host);
      assert.equal(exec!.attributes.error, false);
      assert.equal(exec!.parentSpanContext?.spanId, parent.spanContext().spanId);
    } finally {
      await shutdownTelemetry();
    }
  });

  test('a retry with the same step and seed never queues twice (finished, or still running)', async () => {
    const c1 = new ComfyUiConnector({ baseUrl: fake.url, pollIntervalMs: 50 });
    const c2 = new ComfyUiConnector({ baseUrl: fake.url, pollIntervalMs: 50 });
    const r = req({ stepId: 'job2-step1', seed: 77 });
    const before = fake.posts.length;
    // Second worker starts while the first prompt is running.
    let started!: () => void;
    const running = new Promise<void>((res) => (started = res));
    const first = c1.generate(r, (p) => p >= 10 && started());
    await running;
    const second = c2.generate(r, () => {});
    const [a, b] = await Promise.all([first, second]);
    assert.ok(a.bytes.equals(b.bytes));
    // A retry after it finished reads the history.
    const third = await c2.generate(r, () => {});
    assert.ok(third.bytes.equals(a.bytes));
    assert.equal(fake.posts.length, before + 1);
    // A different seed is different work.
    await c1.generate({ ...r, seed: 78 }, () => {});
    assert.equal(fake.posts.length, before + 2);
  });

  test("execution_error becomes a non-retryable GeneratorError with ComfyUI's message", async () => {
    const c = new ComfyUiConnector({ baseUrl: fake.url, pollIntervalMs: 5000 });
    await rejectsGenerator(
      c.generate(req({ prompt: 'explode please', stepId: 'job3' }), () => {}),
      (e) => {
        assert.equal(e.retryable, false);
        assert.match(e.message, /CUDA out of memory/);
        assert.match(e.message, /KSampler/);
      },
    );
    // The retry sees the failed history entry and reports the same error without queueing again.
    const n = fake.posts.length;
    await rejectsGenerator(
      c.generate(req({ prompt: 'explode please', stepId: 'job3' }), () => {}),
      (e) => assert.match(e.message, /CUDA/),
    );
    assert.equal(fake.posts.length, n);
  });

  test('an interrupted prompt is a retryable failure, and the retry runs it again', async () => {
    const c = new ComfyUiConnector({ baseUrl: fake.url, pollIntervalMs: 5000 });
    const r = req({ prompt: 'interrupt me', stepId: 'job7' });
    await rejectsGenerator(
      c.generate(r, () => {}),
      (e) => {
        assert.equal(e.retryable, true);
        assert.match(e.message, /interrupted/);
      },
    );
    const n = fake.posts.length;
    const out = await c.generate(r, () => {});
    assert.equal(out.mimeType, 'image/png');
    assert.equal(fake.posts.length, n + 1);
    assert.equal(fake.posts.at(-1)!.prompt_id, c.promptIdFor(r));
  });

  test('rejected graphs surface the 400 message; non-graphs are refused up front', async () => {
    const noOutput = { '1': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } } };
    const c = new ComfyUiConnector({ baseUrl: fake.url, workflow: noOutput });
    await rejectsGenerator(
      c.generate(req({ stepId: 'job4' }), () => {}),
      (e) => {
        assert.equal(e.status, 400);
        assert.equal(e.retryable, false);
        assert.match(e.message, /Prompt has no outputs/);
      },
    );
    assert.throws(() => new ComfyUiConnector({ baseUrl: fake.url, workflow: { nodes: [] } }), GeneratorError);
    // A workflow record wrapping the graph in {prompt: …} is accepted.
    assert.ok(new ComfyUiConnector({ baseUrl: fake.url, workflow: { prompt: DEFAULT_COMFY_WORKFLOW } }));
  });

  test('completes by polling history when the websocket done message is lost', async () => {
    const quiet = await startFakeComfyUi({ steps: 2, stepDelayMs: 5, dropDoneMessage: true });
    try {
      const c = new ComfyUiConnector({ baseUrl: quiet.url, pollIntervalMs: 30 });
      const out = await c.generate(req({ stepId: 'job5' }), () => {});
      assert.equal(out.mimeType, 'image/png');
    } finally {
      await quiet.close();
    }
  });

  test('times out as a retryable error; an unreachable server is retryable too', async () => {
    const slow = await startFakeComfyUi({ steps: 50, stepDelayMs: 50 });
    try {
      const c = new ComfyUiConnector({ baseUrl: slow.url, timeoutMs: 300, pollIntervalMs: 50 });
      await rejectsGenerator(
        c.generate(req({ stepId: 'job6' }), () => {}),
        (e) => {
          assert.equal(e.retryable, true);
          assert.match(e.message, /did not finish/);
        },
      );
    } finally {
      await slow.close();
    }
    const gone = new ComfyUiConnector({ baseUrl: 'http://127.0.0.1:9', requestTimeoutMs: 1000 });
    await rejectsGenerator(
      gone.generate(req(), () => {}),
      (e) => assert.equal(e.retryable, true),
    );
  });
});

describe('OpenAI-compatible images connector (against the fake API)', () => {
  let fake: FakeOpenAi;
  before(async () => {
    fake = await startFakeOpenAiImages({ apiKey: 'sk-test', slowMs: 600 });
  });
  after(async () => {
    await fake.close();
  });
  const req: GenerateRequest = { prompt: 'a red cat', seed: 3, width: 512, height: 512, values: {}, referenceImages: [] };

  test('b64_json response: sends the documented request, decodes the image', async () => {
    const c = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-test', model: 'dall-e-3' });
    const progress = progressRecorder();
    const out = await c.generate(req, progress.fn);
    assertProgress(progress.seen);
    assert.equal(out.mimeType, 'image/png');
    assert.equal((await sharp(out.bytes).metadata()).format, 'png');
    const last = fake.requests.at(-1)!;
    assert.equal(last.headers.authorization, 'Bearer sk-test');
    assert.deepEqual(last.body, { model: 'dall-e-3', prompt: 'a red cat', n: 1, size: '512x512', response_format: 'b64_json' });
    assert.equal(out.meta!.revised_prompt, 'a red cat (revised)');
  });

  test('url response (and a base URL ending in /v1) downloads the image', async () => {
    const urlFake = await startFakeOpenAiImages({ forceUrl: true });
    try {
      const c = new OpenAiImagesConnector({ baseUrl: `${urlFake.url}/v1/`, model: 'some-local-model' });
      const out = await c.generate(req, () => {});
      assert.equal(out.mimeType, 'image/png');
      assert.equal(urlFake.requests.length, 1);
      assert.equal(urlFake.requests[0]!.headers.authorization, undefined);
    } finally {
      await urlFake.close();
    }
  });

  test('error bodies become GeneratorError with the API message; 4xx final, 5xx retryable', async () => {
    const bad = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-wrong' });
    await rejectsGenerator(
      bad.generate(req, () => {}),
      (e) => {
        assert.equal(e.status, 401);
        assert.equal(e.retryable, false);
        assert.match(e.message, /Incorrect API key provided/);
        assert.doesNotMatch(e.message, /sk-wrong/);
      },
    );
    const c = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-test' });
    await rejectsGenerator(
      c.generate({ ...req, prompt: 'something forbidden' }, () => {}),
      (e) => {
        assert.equal(e.status, 400);
        assert.match(e.message, /safety system/);
      },
    );
    await rejectsGenerator(
      c.generate({ ...req, width: 300, height: 300 }, () => {}),
      (e) => assert.match(e.message, /size/),
    );
    const flaky = await startFakeOpenAiImages({ failFirst: 1 });
    try {
      const f = new OpenAiImagesConnector({ baseUrl: flaky.url });
      await rejectsGenerator(
        f.generate(req, () => {}),
        (e) => {
          assert.equal(e.status, 500);
          assert.equal(e.retryable, true);
        },
      );
      assert.equal((await f.generate(req, () => {})).mimeType, 'image/png');
    } finally {
      await flaky.close();
    }
  });

  test('timeouts and aborts are retryable errors', async () => {
    const c = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-test', timeoutMs: 200 });
    await rejectsGenerator(
      c.generate({ ...req, prompt: 'a slow cat' }, () => {}),
      (e) => {
        assert.equal(e.retryable, true);
        assert.match(e.message, /did not answer within 200 ms/);
      },
    );
    const ac = new AbortController();
    const c2 = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-test' });
    const p = c2.generate({ ...req, prompt: 'a slow cat' }, () => {}, ac.signal);
    setTimeout(() => ac.abort(), 50);
    await rejectsGenerator(p, (e) => assert.match(e.message, /aborted/));
  });

  test('gpt-image models get no response_format', async () => {
    const c = new OpenAiImagesConnector({ baseUrl: fake.url, apiKey: 'sk-test', model: 'gpt-image-1' });
    await c.generate(req, () => {});
    assert.equal(fake.requests.at(-1)!.body.response_format, undefined);
  });
});

describe('createConnector', () => {
  test('chooses by workflow type and configuration, falling back to the procedural renderer', () => {
    const cfg = { comfyuiUrl: 'http://comfy:8188', openaiBaseUrl: 'https://api.example', openaiApiKey: 'k' };
    assert.equal(createConnector('comfy_workflow', cfg).kind, 'comfyui');
    assert.equal(createConnector('fetch_api', cfg).kind, 'openai');
    assert.equal(createConnector('comfy_workflow', {}).kind, 'procedural');
    assert.equal(createConnector('fetch_api', { comfyuiUrl: 'http://comfy:8188' }).kind, 'procedural');
    assert.equal(createConnector('basic', cfg).kind, 'procedural');
    assert.equal(createConnector('comfy_workflow', cfg, { workflowData: { prompt: DEFAULT_COMFY_WORKFLOW } }).kind, 'comfyui');
    assert.throws(() => createConnector('comfy_workflow', cfg, { workflowData: 'not a graph' }), GeneratorError);
  });
});
