//! Images as the model sees them: [`image_block`] turns a png/jpg/gif/webp file's bytes into a
//! base64 image block, sending small images unchanged and scaling large ones down (longest side
//! at most [`MAX_IMAGE_SIDE`], encoded size at most [`MAX_IMAGE_BYTES`]). The media type comes from
//! the bytes, not the extension, so a mislabelled file is still described correctly.
//!
//! Deciding that a file is an image (by extension) and the model-visible error texts are in
//! `lib.rs` and `prompt.rs`.

use std::io::Cursor;

use base64::Engine as _;
use hands_core::ContentBlock;
use image::{ImageFormat, ImageReader};

use crate::constants::{MAX_IMAGE_BYTES, MAX_IMAGE_SIDE};

fn media_type(format: ImageFormat) -> Option<&'static str> {
    Some(match format {
        ImageFormat::Png => "image/png",
        ImageFormat::Jpeg => "image/jpeg",
        ImageFormat::Gif => "image/gif",
        ImageFormat::WebP => "image/webp",
        _ => return None,
    })
}

/// Prepare `bytes` as an image block (scaled down when too large); the error says why the bytes
/// are not a usable image.
pub(crate) fn image_block(bytes: &[u8]) -> Result<ContentBlock, String> {
    if bytes.is_empty() {
        return Err("the file is empty".into());
    }
    let format =
        image::guess_format(bytes).map_err(|_| "the file is not a PNG, JPEG, GIF or WebP image".to_string())?;
    let media = media_type(format).ok_or_else(|| format!("{format:?} images are not supported"))?;
    let reader = ImageReader::with_format(Cursor::new(bytes), format);
    let (width, height) = reader.into_dimensions().map_err(|e| e.to_string())?;
    let encode = |data: &[u8]| base64::engine::general_purpose::STANDARD.encode(data);
    if width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE && bytes.len() <= MAX_IMAGE_BYTES {
        return Ok(ContentBlock::image(media, encode(bytes)));
    }
    let decoded = ImageReader::with_format(Cursor::new(bytes), format).decode().map_err(|e| e.to_string())?;
    let mut side = MAX_IMAGE_SIDE.min(width.max(height));
    loop {
        let scaled = if width.max(height) > side { decoded.thumbnail(side, side) } else { decoded.clone() };
        let mut out = Vec::new();
        // JPEG keeps photos small; it has no alpha, so flatten to RGB first.
        image::DynamicImage::ImageRgb8(scaled.to_rgb8())
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Jpeg)
            .map_err(|e| e.to_string())?;
        if out.len() <= MAX_IMAGE_BYTES || side <= 64 {
            return Ok(ContentBlock::image("image/jpeg", encode(&out)));
        }
        side = side * 3 / 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 7]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
        out
    }

    /// The media type and the width and height of the image in `block`.
    fn sent(block: ContentBlock) -> (String, (u32, u32)) {
        let ContentBlock::Image { source } = block else { panic!("not an image") };
        let bytes = base64::engine::general_purpose::STANDARD.decode(source.data).unwrap();
        let size = ImageReader::new(Cursor::new(bytes)).with_guessed_format().unwrap().into_dimensions().unwrap();
        (source.media_type, size)
    }

    #[test]
    fn small_images_pass_unchanged() {
        let bytes = png(10, 20);
        let ContentBlock::Image { source } = image_block(&bytes).unwrap() else { panic!("not an image") };
        assert_eq!(source.media_type, "image/png");
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(source.data).unwrap(), bytes);
    }

    #[test]
    fn large_images_are_scaled_down() {
        assert_eq!(sent(image_block(&png(3000, 1500)).unwrap()), ("image/jpeg".to_string(), (2000, 1000)));
    }

    #[test]
    fn garbage_is_refused() {
        assert!(image_block(b"").is_err());
        assert!(image_block(b"not an image at all").is_err());
    }
}
