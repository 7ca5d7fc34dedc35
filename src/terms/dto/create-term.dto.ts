import { IsDefined, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/** Writable fields of a tag (categories add `parent`). */
export class CreateTermDto {
  /** The term name, in the request's language. */
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name: string;

  /** Description, in the request's language. */
  @IsOptional()
  @IsString()
  @MaxLength(100000)
  description?: string;

  /** URL slug; generated from the name when left out. */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  slug?: string;
}
