/** A command template that cannot be parsed, or a value or placement it refuses to render. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "TemplateError"
  }
}
