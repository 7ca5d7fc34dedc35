/** A record's featured image; `false` when it has none. The URL is never fetched. */
export class ImageDto {
  /** Media ID, when the image was given as one. */
  id: number | null;
  /** Absolute http(s) URL, when the image was given as one. */
  url: string | null;
  /** File extension from the URL's path, lower case. */
  extension: string | null;
}
