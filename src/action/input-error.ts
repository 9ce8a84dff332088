// An input the action cannot take: the message names the input and says what
// is allowed.
export class InputError extends Error {
  constructor(input: string, message: string) {
    super(`input '${input}': ${message}`)
    this.name = 'InputError'
  }
}
