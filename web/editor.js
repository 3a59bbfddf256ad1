// The generation editor (create and settings): a prompt with `$variables` and a variable editor
// with `value:weight` options, validated as the creator types: weights are numbers ≥ 0, every
// `$variable` must be defined, and each variable shows its options' odds in %.
// The six image inputs every collection has (social_pfp, ref_image_1..5) are explained apart.
import { api } from './api.js';
import { $$, act, feedback, fileBase64, h, say } from './dom.js';

export const IMAGE_INPUTS = ['social_pfp', 'ref_image_1', 'ref_image_2', 'ref_image_3', 'ref_image_4', 'ref_image_5'];
const BLANK = 'blank://placeholder';

/**
 * `value` or `value:weight`, comma separated. A weight is a number ≥ 0: `red:x` and `blue:-1` are
 * refused with a message naming the option (they were saved as option values before).
 */
export function parseOptions(text, name) {
  const options = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((part) => {
      const colon = part.lastIndexOf(':');
      if (colon < 0) return { value: part, display_name: part, weight: 1 };
      const value = part.slice(0, colon).trim();
      const weightText = part.slice(colon + 1).trim();
      const weight = Number(weightText);
      if (!value) throw new Error(`variable ${name}: option "${part}" has no value before its weight`);
      if (weightText === '' || !Number.isFinite(weight) || weight < 0)
        throw new Error(`variable ${name}: the weight of "${value}" must be a number ≥ 0 (got "${weightText}")`);
      return { value, display_name: value, weight };
    });
  if (options.length === 0) throw new Error(`variable ${name}: give at least one option`);
  if (options.every((o) => o.weight === 0)) throw new Error(`variable ${name}: at least one weight must be above 0`);
  return options;
}

/** Each option's odds in % ("red 20.0 %, blue 60.0 %"), or the problem with the options. */
export function oddsText(text, name) {
  try {
    const options = parseOptions(text, name || 'this variable');
    const total = options.reduce((s, o) => s + o.weight, 0);
    return { ok: true, text: options.map((o) => `${o.value} ${((o.weight / total) * 100).toFixed(1)} %`).join(', ') };
  } catch (err) {
    return { ok: false, text: err.message };
  }
}

/**
 * The `$variables` (or `${variables}`) a prompt uses that no variable defines. Like the server's
 * substitution, `$colors` reads as `$color` + "s" when only `color` is defined.
 */
export function undefinedVariables(prompt, names) {
  const all = [...names, ...IMAGE_INPUTS];
  const used = [...prompt.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g)].map((m) => m[1]);
  return [...new Set(used.filter((u) => !all.some((n) => u === n || u.startsWith(n))))];
}

const optionsText = (v) =>
  (v.value ?? []).map((o) => (Number(o.weight ?? 1) === 1 ? o.value : `${o.value}:${Number(o.weight)}`)).join(', ');

function variableRow(v, original) {
  const name = h('input', { name: 'varName', placeholder: 'name', value: v.name, 'aria-label': 'variable name', autocomplete: 'off' });
  const options = h('input', {
    name: 'varOptions',
    placeholder: 'red:1, blue:3',
    value: v.options,
    'aria-label': 'options (value or value:weight, comma separated)',
    autocomplete: 'off',
  });
  const trait = h('input', { type: 'checkbox', name: 'varTrait', checked: v.trait });
  const odds = h('small', { class: 'odds muted', 'data-field': 'odds' });
  const row = h(
    'div',
    { class: 'variable' },
    name,
    options,
    h('label', { class: 'check' }, trait, 'trait'),
    h(
      'button',
      { type: 'button', class: 'ghost small', 'aria-label': 'remove variable', title: 'remove', onclick: () => row.remove() },
      '×',
    ),
    odds,
  );
  row.original = original;
  // The odds each option gets, shown as the creator types (or what is wrong with the options).
  const update = () => {
    const r = oddsText(options.value, name.value.trim());
    odds.textContent = r.text;
    odds.className = `odds ${r.ok ? 'muted' : 'bad'}`;
    options.setAttribute('aria-invalid', String(!r.ok));
  };
  row.addEventListener('input', update);
  update();
  return row;
}

/**
 * One of the six image inputs, explained, with its value. A reference slot takes an uploaded image
 * (POST /api/nft/upload-image; the stored path becomes its value) or is cleared; `slots` holds
 * what the editor will save.
 */
function imageInputItem(name, variable, slots) {
  const initial = variable?.value?.[0]?.value;
  if (initial && initial !== BLANK) slots.set(name, initial);
  const what =
    name === 'social_pfp'
      ? "the minter's profile picture (the creator's for samples), filled at each mint; a step uses it as its user image"
      : `reference image slot ${name.slice(-1)}: blank unless you give it an image; the image step draws it as a reference`;
  const state = h('span', { 'data-field': 'slot-value' });
  const show = () => {
    const v = slots.get(name);
    state.textContent = v ? `Set: ${v}` : name === 'social_pfp' ? 'Filled per mint.' : 'Blank: skipped by the image step.';
    state.className = v ? 'good' : 'muted';
  };
  show();
  const item = h('li', { 'data-input': name }, h('code', {}, `$${name}`), ' — ', what, '. ', state);
  if (name === 'social_pfp') return item;
  const file = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif', 'aria-label': `image for ${name}` });
  const line = feedback();
  const upload = h('button', { type: 'button', class: 'secondary small' }, 'Upload');
  const clear = h('button', { type: 'button', class: 'ghost small' }, 'Clear');
  upload.addEventListener('click', () =>
    act(upload, line, async () => {
      const f = file.files?.[0];
      if (!f) throw new Error(`${name}: choose an image file`);
      const res = await api('POST', '/api/nft/upload-image', {
        body: { base64Data: await fileBase64(f), filename: f.name, ...(f.type ? { mimeType: f.type } : {}) },
      });
      slots.set(name, res.path);
      show();
      return 'Uploaded: save the generation to use it.';
    }),
  );
  clear.addEventListener('click', () => {
    slots.delete(name);
    show();
    say(line, 'Cleared: save the generation to apply.', 'muted');
  });
  item.append(h('div', { class: 'slot-upload' }, file, upload, clear, line));
  return item;
}

/**
 * The editor for a collection's generation data. `data`: the current generation data (v2) or
 * undefined for a new collection. Answers {el, read()}: read() gives the generation data to send,
 * or throws an Error naming the field.
 */
export function generationEditor(data) {
  const step = data?.steps?.[0];
  const prompt = h('input', {
    name: 'intent',
    value: step?.nodePayload?.intent ?? 'a $color $animal, studio light',
    required: true,
    autocomplete: 'off',
    'aria-describedby': 'prompt-check',
  });
  const promptCheck = h('small', { id: 'prompt-check', class: 'hint', 'data-field': 'prompt-check' });
  const list = h('div', { class: 'variables' });
  const visible = (data?.variables ?? []).filter((v) => !IMAGE_INPUTS.includes(v.name));
  const rows = data
    ? visible.map((v) => variableRow({ name: v.name, options: optionsText(v), trait: Boolean(v.is_feature) }, v))
    : [
        variableRow({ name: 'color', options: 'red:1, blue:3, gold:1', trait: true }),
        variableRow({ name: 'animal', options: 'cat, fox, owl', trait: true }),
      ];
  list.append(...rows);

  const names = () => $$('.variable [name=varName]', list).map((i) => i.value.trim());
  const checkPrompt = () => {
    const missing = undefinedVariables(prompt.value, names());
    promptCheck.textContent = missing.length
      ? `${missing.map((m) => `$${m}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not defined by any variable`
      : 'Every $variable is defined.';
    promptCheck.className = `hint ${missing.length ? 'bad' : 'good'}`;
    prompt.setAttribute('aria-invalid', String(missing.length > 0));
  };
  prompt.addEventListener('input', checkPrompt);
  list.addEventListener('input', checkPrompt);
  checkPrompt();

  const json = h('textarea', {
    name: 'dataJson',
    rows: 8,
    spellcheck: 'false',
    placeholder: '{"version":"v2","steps":[...],"variables":[...]}',
    'aria-label': 'generation data as JSON',
  });
  const byName = new Map((data?.variables ?? []).map((v) => [v.name, v]));
  const slots = new Map();

  const el = h(
    'div',
    { class: 'editor stack' },
    h('label', { class: 'field' }, h('span', { class: 'label' }, 'Prompt'), prompt, promptCheck),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Variables'),
      h(
        'p',
        { class: 'hint' },
        'Options: ',
        h('code', {}, 'value'),
        ' or ',
        h('code', {}, 'value:weight'),
        ', comma separated. A trait appears in the token metadata.',
      ),
      list,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          onclick: () => list.append(variableRow({ name: '', options: '', trait: true })),
        },
        'Add variable',
      ),
    ),
    h(
      'details',
      { class: 'image-inputs' },
      h('summary', {}, 'Image inputs every collection has (6)'),
      h(
        'p',
        { class: 'hint' },
        'These variables are added to every collection and are not traits. They hold images a step can use; blank ones are skipped.',
      ),
      h(
        'ul',
        {},
        IMAGE_INPUTS.map((n) => imageInputItem(n, byName.get(n), slots)),
      ),
    ),
    h('details', {}, h('summary', {}, 'Generation data as JSON (replaces the editor when not empty)'), json),
  );

  function read() {
    const raw = json.value.trim();
    if (raw) {
      try {
        return JSON.parse(raw);
      } catch (err) {
        throw new Error(`generation data JSON: ${err.message}`);
      }
    }
    const variables = $$('.variable', list)
      .map((row) => ({
        row,
        name: row.querySelector('[name=varName]').value.trim(),
        options: row.querySelector('[name=varOptions]').value,
        trait: row.querySelector('[name=varTrait]').checked,
      }))
      .filter((v) => v.name)
      .map((v) => ({
        // What the editor does not show (customizable, feature name…) is kept as it was.
        ...(v.row.original ?? {
          type: 'pick',
          value_type: 'strings',
          // The trait keeps the name as the creator typed it, as through the API (docs/admin-ui.md).
          feature_name: v.name,
          is_selectable: true,
          is_user_customizable: false,
          required: false,
        }),
        name: v.name,
        is_feature: v.trait,
        value: parseOptions(v.options, v.name),
      }));
    const missing = undefinedVariables(
      prompt.value,
      variables.map((v) => v.name),
    );
    if (missing.length > 0)
      throw new Error(
        `prompt: ${missing.map((m) => `$${m}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not defined by any variable`,
      );
    // The image inputs as they were, with the reference slots the creator set or cleared.
    const hidden = (data?.variables ?? [])
      .filter((v) => IMAGE_INPUTS.includes(v.name))
      .map((v) =>
        v.name === 'social_pfp'
          ? v
          : { ...v, value: [{ value: slots.get(v.name) ?? BLANK, display_name: slots.has(v.name) ? 'reference' : 'blank', weight: 1 }] },
      );
    for (const name of IMAGE_INPUTS.slice(1)) {
      if (slots.has(name) && !hidden.some((v) => v.name === name)) {
        hidden.push({
          name,
          type: 'pick',
          value_type: 'strings',
          is_feature: false,
          is_user_customizable: true,
          value: [{ value: slots.get(name), display_name: 'reference', weight: 1 }],
        });
      }
    }
    const steps = data?.steps?.length
      ? data.steps.map((s, i) => (i === 0 ? { ...s, nodePayload: { ...s.nodePayload, intent: prompt.value } } : s))
      : [{ id: 1, nodeName: 'image', nodePayload: { intent: prompt.value, user_image: null, optional_ref_image: null, seed: null } }];
    return {
      version: 'v2',
      steps,
      generations: data?.generations ?? { hashes: [], generations: 0, use_custom_hashes: false },
      variables: [...variables, ...hidden],
    };
  }

  return { el, read };
}
