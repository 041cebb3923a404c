import { BodyNotUtf8Error } from '../common/validation/json-body.js';

/** A form as browsers encode it (WHATWG urlencoded), each field's value or its values when repeated (checkboxes). */
export function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    // What a byte or a %XX sequence that is not UTF-8 decodes to: the body was not the UTF-8 the page sends.
    if (value.includes('\uFFFD') || name.includes('\uFFFD')) throw new BodyNotUtf8Error();
    const had = form[name];
    form[name] = had === undefined ? value : [had, value].flat();
  }
  return form;
}
