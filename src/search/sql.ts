// Parameterized SQL built from trusted structure: values only ever travel as $n parameters.
export class Sql {
  constructor(readonly params: unknown[] = []) {}

  /** A placeholder for `value`. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** A copy to build another statement on, reusing the placeholders written so far. */
  fork(): Sql {
    return new Sql([...this.params]);
  }
}
