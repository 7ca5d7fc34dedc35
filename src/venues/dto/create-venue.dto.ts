import { IsBoolean, IsDefined, IsNotEmpty, IsOptional } from 'class-validator';
import {
  IsOmittable,
  IsText,
  IsWithin,
  ToBoolean,
  ToNullableDecimal,
  ToTrimmed,
} from '../../common/validation/decorators';
import { ContentWriteDto } from '../../posts/dto/content.dto';

/** Writable fields of a venue (docs/api.md §6). */
export class CreateVenueDto extends ContentWriteDto {
  /** The venue's name, in the request's language. */
  @IsDefined()
  @ToTrimmed()
  @IsNotEmpty()
  @IsText(200)
  venue: string;

  /** Street address. */
  @IsOptional()
  @IsText(255)
  address?: string;

  @IsOptional()
  @IsText(255)
  city?: string;

  @IsOptional()
  @IsText(255)
  country?: string;

  @IsOptional()
  @IsText(255)
  province?: string;

  @IsOptional()
  @IsText(255)
  state?: string;

  /** Postal code. */
  @IsOptional()
  @IsText(255)
  zip?: string;

  /** State or province as one text. */
  @IsOptional()
  @IsText(255)
  stateprovince?: string;

  /** Latitude, −90 … 90; null or `""` when unknown. */
  @IsOptional()
  @ToNullableDecimal()
  @IsWithin(90)
  geo_lat?: number | null;

  /** Longitude, −180 … 180; null or `""` when unknown. */
  @IsOptional()
  @ToNullableDecimal()
  @IsWithin(180)
  geo_lng?: number | null;

  /** Show a map on the venue's page. */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  show_map?: boolean;

  /** Show a link to a map on the venue's page. */
  @IsOmittable()
  @ToBoolean()
  @IsBoolean()
  show_map_link?: boolean;
}
