/**
 * A body validator typed by the use case's input. `const validateX: BodyValidator<XInput> = makeValidator(XSchema,
 * ...)` compiles only while everything the schema accepts (`Static<typeof XSchema>`) is assignable to `XInput`: the
 * use case owns its input type, and the transport's schema is checked against it at compile time.
 */
export type BodyValidator<Input> = (body: unknown) => Input;
