// Parameterized SQL built from trusted structure: values only ever travel as $n parameters.
export class Sql {
  readonly params: unknown[] = [];

  /** A placeholder for `value`. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
}
