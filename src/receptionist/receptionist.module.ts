import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceptionistSettingsEntity } from './entities/receptionist-settings.entity.js';
import { ReceptionistController } from './receptionist.controller.js';
import { ReceptionistSettingsRepository } from './receptionist-settings.repository.js';
import { ReceptionistService } from './receptionist.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([ReceptionistSettingsEntity])],
  controllers: [ReceptionistController],
  providers: [ReceptionistService, ReceptionistSettingsRepository],
  exports: [ReceptionistService],
})
export class ReceptionistModule {}
